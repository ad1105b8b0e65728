package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** How requests select rules: agent, messages, call number, tools, model, times and rule order. */
class ScriptedModelMatchingTest extends ScriptedModelTestSupport {

    private String answer(ObjectNode request) {
        var response = chat(request);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return choice(response).at("/message/content").asText();
    }

    @Test
    void rules_match_on_the_exact_agent_or_on_an_agent_regex() {
        server.load("""
                {"rules":[
                  {"match":{"agent":"default/lead"},"reply":{"text":"lead"}},
                  {"match":{"agent":"^default/dev-"},"reply":{"text":"dev"}},
                  {"match":{"agentRegex":"tester$"},"reply":{"text":"tester"}},
                  {"reply":{"text":"anyone"}}]}
                """);

        assertThat(answer(chatRequest("default/lead", "user", "hi"))).isEqualTo("lead");
        assertThat(answer(chatRequest("default/lead-2", "user", "hi"))).isEqualTo("anyone");
        assertThat(answer(chatRequest("default/dev-7", "user", "hi"))).isEqualTo("dev");
        assertThat(answer(chatRequest("other/tester", "user", "hi"))).isEqualTo("tester");
        assertThat(answer(chatRequest(null, "user", "hi"))).isEqualTo("anyone");
    }

    @Test
    void the_call_number_counts_requests_per_agent_since_reset() {
        server.load(Scenario.builder()
                .rule(Rule.when().call(1).thenText("first"))
                .rule(Rule.when().call(2).thenText("second"))
                .rule(Rule.when().thenText("later"))
                .build());

        assertThat(answer(chatRequest("a", "user", "hi"))).isEqualTo("first");
        assertThat(answer(chatRequest("b", "user", "hi"))).isEqualTo("first");
        assertThat(answer(chatRequest("a", "user", "hi"))).isEqualTo("second");
        assertThat(answer(chatRequest("a", "user", "hi"))).isEqualTo("later");
        assertThat(answer(chatRequest("b", "user", "hi"))).isEqualTo("second");
    }

    @Test
    void the_last_message_matches_whatever_its_role_while_last_user_message_looks_back() {
        server.load(Scenario.builder()
                .rule(Rule.when().lastMessage("^exit code 0").lastUserMessage("list").thenText("tool result seen"))
                .rule(Rule.when().lastMessage("(?i)LIST FILES").thenText("user asked"))
                .build());

        assertThat(answer(chatRequest("a", "user", "please list files"))).isEqualTo("user asked");
        assertThat(answer(chatRequest("a", "user", "please list files", "assistant", "", "tool", "exit code 0\na.txt")))
                .isEqualTo("tool result seen");
    }

    @Test
    void the_system_prompt_and_any_message_can_be_matched() {
        server.load(Scenario.builder()
                .rule(Rule.when().system("You are the lead").thenText("lead persona"))
                .rule(Rule.when().anyMessage("secret word").thenText("found it"))
                .build());

        assertThat(answer(chatRequest("a", "system", "Team rules.\nYou are the lead.", "user", "hi")))
                .isEqualTo("lead persona");
        assertThat(answer(chatRequest("a", "system", "You are a dev", "user", "the secret word is x",
                "assistant", "ok", "user", "go on"))).isEqualTo("found it");
        assertThat(chat(chatRequest("a", "system", "You are a dev", "user", "nothing")).statusCode()).isEqualTo(500);
    }

    @Test
    void text_parts_of_a_content_array_are_matched() {
        server.load(Scenario.builder().rule(Rule.when().lastMessage("part two").thenText("parts")).build());
        ObjectNode request = chatRequest("a");
        request.withArray("messages").addObject().put("role", "user").putArray("content")
                .add(JSON.createObjectNode().put("type", "text").put("text", "part one"))
                .add(JSON.createObjectNode().put("type", "text").put("text", "part two"));

        assertThat(answer(request)).isEqualTo("parts");
    }

    @Test
    void tools_tool_results_last_role_and_model_can_be_matched() {
        server.load("""
                {"rules":[
                  {"match":{"model":"gpt-big"},"reply":{"text":"big model"}},
                  {"match":{"hasToolResult":true,"lastRole":"tool"},"reply":{"text":"after tool"}},
                  {"match":{"hasTools":true},"reply":{"text":"with tools"}},
                  {"match":{"hasTools":false},"reply":{"text":"no tools"}}]}
                """);
        ObjectNode withTools = chatRequest("a", "user", "hi");
        withTools.putArray("tools").addObject().put("type", "function").putObject("function").put("name", "bash");
        ObjectNode afterTool = chatRequest("a", "user", "hi", "assistant", "", "tool", "done");
        ObjectNode bigModel = chatRequest("a", "user", "hi");
        bigModel.put("model", "gpt-big");

        assertThat(answer(chatRequest("a", "user", "hi"))).isEqualTo("no tools");
        assertThat(answer(withTools)).isEqualTo("with tools");
        assertThat(answer(afterTool)).isEqualTo("after tool");
        assertThat(answer(bigModel)).isEqualTo("big model");
    }

    @Test
    void an_exhausted_rule_falls_through_to_the_next_matching_rule() {
        server.load("""
                {"rules":[
                  {"name":"flaky","reply":{"error":{"status":429,"retryAfter":"0"}},"times":2},
                  {"name":"recovered","reply":{"text":"ok now"}}]}
                """);

        assertThat(chat(chatRequest("a", "user", "hi")).statusCode()).isEqualTo(429);
        assertThat(chat(chatRequest("b", "user", "hi")).statusCode()).isEqualTo(429);
        assertThat(answer(chatRequest("a", "user", "hi"))).isEqualTo("ok now");
        assertThat(server.requests()).extracting(RecordedRequest::rule)
                .containsExactly("flaky", "flaky", "recovered");
    }

    @Test
    void concurrent_requests_never_exceed_a_rules_times_and_get_distinct_call_numbers() throws Exception {
        server.load(Scenario.builder()
                .rule(Rule.when().name("limited").times(5).thenText("limited"))
                .rule(Rule.when().name("rest").thenText("rest"))
                .build());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                answers.add(pool.submit(() -> answer(chatRequest("same-agent", "user", "hi"))));
            }
            List<String> texts = new ArrayList<>();
            for (Future<String> f : answers) {
                texts.add(f.get());
            }
            assertThat(texts).filteredOn("limited"::equals).hasSize(5);
            assertThat(texts).filteredOn("rest"::equals).hasSize(35);
        } finally {
            pool.shutdownNow();
        }
        assertThat(server.requests()).extracting(RecordedRequest::call).doesNotHaveDuplicates().hasSize(40);
    }
}
