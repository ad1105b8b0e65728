package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * No model-issued process or file tool can change the workspace's {@code .cohort/} (the team's settings and hooks):
 * commands see it read-only whatever they spell, the file tools refuse every spelling of it, and people's own
 * changes on disk still reach the agents.
 */
@QuarkusTest
class ProtectedConfigTest {

    @Test
    void noCommandCanWriteTheSettingsDirectoryHoweverItSpellsIt() throws Exception {
        Assumptions.assumeFalse("none".equals(System.getenv("COHORT_SANDBOX")), "COHORT_SANDBOX=none: nothing is confined");
        String team = newTeam();
        Path settings = Calls.workspace(team).resolve(".cohort/settings.json");
        // the text of the command never names the directory: a guard that matches text would not see it
        String[] attempts = {
            "d=.co; d=${d}hort; echo '{\"hooks\":{}}' > $d/settings.json",
            "d=.co; d=${d}hort; mkdir -p $d/hooks",
            "p=$(printf '.c%sort' oh); mv $p $p-old && mkdir $p && echo x > $p/settings.json",
            "p=$(printf '.c%sort' oh); rm -rf $p",
            "p=$(printf '.c%sort' oh); ln -s ../elsewhere $p/settings.json",
            "p=$(printf '.c%sort' oh); cp /etc/hostname $p/settings.json",
        };
        for (String a : attempts) {
            ToolCallResult r = bash(team, "(" + a + ") 2>/dev/null && echo WROTE || echo refused");
            assertThat(r.output()).as(a).isEqualTo("refused\n");
        }
        assertThat(settings).doesNotExist();
        assertThat(Calls.workspace(team).resolve(".cohort")).isDirectory();
        assertThat(bash(team, "ls -A .cohort | wc -l").output()).isEqualTo("0\n");
        // a person's own file (written on the host) is read by the agents' tools
        Files.writeString(settings, "{\"hooks\":{}}");
        assertThat(bash(team, "cat .cohort/settings.json").output()).isEqualTo("{\"hooks\":{}}");
        assertThat(call("read_file", team, args("path", ".cohort/settings.json")).output()).contains("{\"hooks\":{}}");
    }

    @Test
    void theFileToolsRefuseEverySpellingOfTheSettingsDirectory() throws Exception {
        String team = newTeam();
        bash(team, "mkdir -p sub && ln -s .cohort cfg && ln -s . here");
        String[] paths = {".cohort/settings.json", "./sub/../.cohort/settings.json", ".COHORT/settings.json",
            ".Cohort/x/settings.json", "cfg/settings.json", "here/here/.cohort/settings.json",
            Calls.workspace(team).toRealPath().resolve(".cohort/settings.json").toString()};
        for (String p : paths) {
            ToolCallResult w = call("write_file", team, args("path", p, "content", "{\"hooks\":{}}"));
            assertThat(w.error()).as(p).contains("rule: protected-config");
        }
        Files.writeString(Calls.workspace(team).resolve(".cohort/settings.json"), "{}\n");
        ToolCallResult e = call("edit_file", team, args("path", "cfg/settings.json", "old_text", "{}",
                "new_text", "{\"hooks\":{}}"));
        assertThat(e.error()).contains("rule: protected-config");
        assertThat(Calls.workspace(team).resolve(".cohort/settings.json")).hasContent("{}");
        // a file elsewhere whose name merely contains the word is fine
        assertThat(call("write_file", team, args("path", "docs/.cohort-notes.md", "content", "x")).error()).isNull();
    }

    @Test
    void aSettingsDirectoryThatIsASymbolicLinkStopsTheTeamsCommandsWithAClearError() throws Exception {
        Assumptions.assumeFalse("none".equals(System.getenv("COHORT_SANDBOX")), "COHORT_SANDBOX=none: nothing is confined");
        String team = newTeam();
        bash(team, "true"); // the workspace exists, with its .cohort
        Path ws = Calls.workspace(team);
        Files.delete(ws.resolve(".cohort"));
        Files.createDirectories(ws.resolve("writable"));
        Files.createSymbolicLink(ws.resolve(".cohort"), Path.of("writable"));
        ToolCallResult r = bash(team, "echo '{}' > writable/settings.json");
        assertThat(r.error()).contains("rule: protected-config").contains("not a directory");
        assertThat(ws.resolve("writable/settings.json")).doesNotExist();
    }
}
