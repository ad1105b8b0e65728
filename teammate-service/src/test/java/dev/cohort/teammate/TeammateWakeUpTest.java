package dev.cohort.teammate;

import static dev.cohort.teammate.TeammateHostTest.awaitResults;
import static dev.cohort.teammate.TeammateHostTest.message;
import static dev.cohort.teammate.TeammateHostTest.newTeam;
import static dev.cohort.teammate.TeammateHostTest.PATIENCE;
import static dev.cohort.teammate.TeammateHostTest.requestsOf;
import static dev.cohort.teammate.TeammateHostTest.rule;
import static dev.cohort.teammate.TeammateHostTest.rules;
import static dev.cohort.teammate.TeammateHostTest.send;
import static dev.cohort.teammate.TeammateHostTest.spawn;
import static dev.cohort.teammate.TeammateHostTest.systemPrompt;
import static dev.cohort.teammate.TeammateHostTest.userMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.teammate.agent.TeammateHost;
import dev.cohort.teammate.engine.TeammateEngine;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a woken teammate skips and what it must still see: its idle session is kept, the workspace
 * skills and hook settings of its team are read once for all its teammates on this replica, and a change through a
 * teammate's tool call (or a background job's end) is in the next turn of every teammate of the team. The test
 * profile's cache ttl is 10 minutes, so only those signals can make a turn read again.
 */
@QuarkusTest
class TeammateWakeUpTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    TeammateHost host;

    @Inject
    TeammateEngine engine;

    @Inject
    AgroalDataSource ds;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        TopicRecorder.start();
    }

    private List<JsonNode> requests(String agent) {
        return requestsOf(model, agent);
    }

    @Test
    void aWokenTeammateRunsOnItsKeptSessionAndTheTurnStartsOfItsTeamReadTheWorkspaceOnce() throws Exception {
        String team = newTeam("kept");
        String bob = team + "/bob";
        model.append(rules(
                rule("kept-bob-start", bob, "\"lastUserMessage\":\"Task from the lead\"", "{\"text\":\"ready\"}"),
                rule("kept-bob-note", bob, "\"lastUserMessage\":\"note 1\"", "{\"text\":\"noted\"}"),
                rule("kept-carol-start", team + "/carol", "\"lastUserMessage\":\"Task from the lead\"", "{\"text\":\"ready\"}")));
        spawn(team, "bob", "reviewer", "wait for notes");
        awaitResults(team, "bob", 1);
        AgentKey key = new AgentKey(team, "bob");
        await().atMost(PATIENCE).until(() -> host.agentHost().keeps(key));
        long reads = engine.workspaceReads().reads(team);
        assertThat(reads).isEqualTo(2); // the skills and the hook settings of the team, once each

        send(key.id(), message(UUID.randomUUID().toString(), team, "lead", "bob", "note 1"));
        awaitResults(team, "bob", 2);
        spawn(team, "carol", "reviewer", "wait too");
        awaitResults(team, "carol", 1);

        assertThat(engine.workspaceReads().reads(team)).isEqualTo(reads);
        assertThat(userMessages(requests(bob).get(requests(bob).size() - 1))).last().asString().contains("note 1");
        assertThat(TeammateHostTest.queryOne(ds, "SELECT (idle_deadline IS NOT NULL)::text FROM teammate.teammates"
                + " WHERE team = ? AND name = 'bob'", team)).isEqualTo("true");
        await().atMost(PATIENCE).until(() -> host.agentHost().keeps(key));
    }

    @Test
    void aSkillOneTeammateWritesIsInTheNextTurnOfAnotherWhoseTeamsReadsWereKept() throws Exception {
        String team = newTeam("skills");
        String bob = team + "/bob";
        String alice = team + "/alice";
        model.append(rules(
                rule("skills-bob-start", bob, "\"lastUserMessage\":\"Task from the lead\"", "{\"text\":\"ready\"}"),
                rule("skills-bob-again", bob, "\"lastUserMessage\":\"look again\"", "{\"text\":\"looked\"}"),
                rule("skills-alice-write", alice, "\"lastRole\":\"user\"", "{\"toolCalls\":[{\"name\":\"write_file\","
                        + "\"arguments\":{\"path\":\"skills/release-notes/SKILL.md\",\"content\":\"---\\nname: release-notes"
                        + "\\ndescription: how this team writes release notes\\n---\\nsteps\\n\"}}]}"),
                rule("skills-alice-end", alice, "\"lastRole\":\"tool\"", "{\"text\":\"written\"}")));
        spawn(team, "bob", "writer", "wait");
        awaitResults(team, "bob", 1);
        assertThat(systemPrompt(requests(bob).get(0))).doesNotContain("release-notes");

        spawn(team, "alice", "writer", "write the release-notes skill");
        awaitResults(team, "alice", 1);
        send(team + "/bob", message(UUID.randomUUID().toString(), team, "lead", "bob", "look again"));
        awaitResults(team, "bob", 2);

        assertThat(systemPrompt(requests(bob).get(requests(bob).size() - 1)))
                .contains("- release-notes: how this team writes release notes");
    }

    @Test
    void aBackgroundJobsEndMakesTheNextTurnOfItsTeamReadTheWorkspaceAgain() throws Exception {
        String team = newTeam("bgdone");
        String bob = team + "/bob";
        model.append(rules(
                rule("bgdone-bob-start", bob, "\"lastUserMessage\":\"Task from the lead\"", "{\"text\":\"ready\"}"),
                rule("bgdone-bob-done", bob, "\"lastUserMessage\":\"background_done\"", "{\"text\":\"seen\"}")));
        spawn(team, "bob", "builder", "wait for the build");
        awaitResults(team, "bob", 1);
        long reads = engine.workspaceReads().reads(team);

        send(team + "/bob", Json.write(new AgentMessage("background_done-bg_" + UUID.randomUUID(), team, "tool-runner",
                "bob", MessageType.BACKGROUND_DONE, "the build finished", Map.of("status", "completed"), Instant.now())));
        awaitResults(team, "bob", 2);

        assertThat(engine.workspaceReads().reads(team)).isEqualTo(reads + 2);
    }
}
