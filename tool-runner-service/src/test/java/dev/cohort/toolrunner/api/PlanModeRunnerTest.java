package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A call the host marks read-only (the agent's team is in plan mode) cannot change anything, whatever the command
 * rules made of its command: the workspace, its worktrees and the team's HOME are mounted read-only in its sandbox,
 * and the runner refuses every other mutating tool. Each escape below ran as a "read" before; here it runs and
 * writes nothing.
 */
@QuarkusTest
class PlanModeRunnerTest {

    private static ToolCallResult readOnly(String tool, String team, String cwd, Map<String, Object> args) {
        ToolCallRequest req = new ToolCallRequest(team, "lead", "call_" + UUID.randomUUID(), cwd, args, true);
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .contentType(ContentType.JSON).body(Json.write(req)).post("/internal/v1/tools/" + tool)
                .then().statusCode(200).extract().asString();
        return Json.read(body, ToolCallResult.class);
    }

    @Test
    void aReadOnlyCallsCommandsReadButWriteNothingWhateverTheyAre() throws Exception {
        Assumptions.assumeFalse("none".equals(System.getenv("COHORT_SANDBOX")), "COHORT_SANDBOX=none: nothing is confined");
        String team = newTeam();
        assertThat(bash(team, "echo alpha > a.txt && git add a.txt && git commit -qm a && echo ok").output())
                .isEqualTo("ok\n");
        Path ws = Calls.workspace(team);
        Path home = Calls.stateDir().resolve("teams").resolve(team).resolve("home");

        // reads work
        assertThat(readOnly("bash", team, null, args("command", "cat a.txt && git log --oneline | wc -l")).output())
                .isEqualTo("alpha\n2\n"); // the initial commit and ours
        assertThat(readOnly("read_file", team, null, args("path", "a.txt")).error()).isNull();

        String[] escapes = {
            "sed -n '1e touch e1' a.txt",
            "sed -n 'w e2' a.txt",
            "git log --output=e3 -1",
            "awk 'BEGIN{system(\"touch e4\")}'",
            "find . -maxdepth 1 -name a.txt -fprint e5",
            "find . -maxdepth 1 -name a.txt -exec touch e6 \\;",
            "echo a.txt | xargs -I{} cp {} e7",
            "env touch e8",
            "tar cf - a.txt | tar xf - --to-command='cat > e9'",
            "echo x > e10",
            "touch \"$HOME/e11\"",
            "git -c core.fsmonitor='touch e12; echo' status",
        };
        for (String e : escapes) {
            readOnly("bash", team, null, args("command", e + " 2>/dev/null; true"));
        }
        try (Stream<Path> files = Files.list(ws)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(".git", ".cohort", "a.txt");
        }
        assertThat(home.resolve("e11")).doesNotExist();
        // the same command without the read-only mark writes: the check above can see a write
        bash(team, "sed -n '1e touch e1' a.txt");
        assertThat(ws.resolve("e1")).exists();
    }

    @Test
    void aReadOnlyCallCannotUseTheWritingToolsAndAWorktreeIsReadOnlyToo() {
        String team = newTeam();
        assertThat(Calls.call("create_worktree", team, args("name", "wt")).error()).isNull();
        for (String tool : new String[] {"write_file", "edit_file"}) {
            ToolCallResult r = readOnly(tool, team, null, args("path", "x.txt", "content", "x", "old_text", "a",
                    "new_text", "b"));
            assertThat(r.error()).as(tool).contains("rule: plan-mode");
        }
        assertThat(readOnly("remove_worktree", team, null, args("name", "wt", "discard_changes", true)).error())
                .contains("rule: plan-mode");
        assertThat(readOnly("create_worktree", team, null, args("name", "wt2")).error()).contains("rule: plan-mode");
        if (!"none".equals(System.getenv("COHORT_SANDBOX"))) {
            assertThat(readOnly("bash", team, "wt:wt", args("command",
                    "(echo x > in-wt.txt) 2>/dev/null && echo WROTE; (git commit -q --allow-empty -m x) 2>/dev/null"
                            + " && echo COMMITTED; echo done")).output()).isEqualTo("done\n");
        }
        assertThat(Calls.call("list_worktrees", team, args()).output()).contains("\"name\":\"wt\"");
    }
}
