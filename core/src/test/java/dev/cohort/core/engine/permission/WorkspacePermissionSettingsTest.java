package dev.cohort.core.engine.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings file's {@code permissions}: read through the executor, each team's last good rules kept. */
class WorkspacePermissionSettingsTest {

    /** The file as the tool runner would answer read_file for it (line-numbered), or its failure. */
    private static final class File implements WorkspaceToolExecutor {
        volatile String text;
        volatile String error;
        volatile RuntimeException thrown;
        int reads;

        @Override
        public ToolOutcome execute(String tool, String callId, ObjectNode args, Target target) {
            reads++;
            if (thrown != null) {
                throw thrown;
            }
            if (error != null) {
                return ToolOutcome.failure(error);
            }
            StringBuilder numbered = new StringBuilder();
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                numbered.append(String.format("%6d\t%s%n", i + 1, lines[i]));
            }
            return ToolOutcome.ok(numbered.toString());
        }
    }

    private static final WorkspaceToolExecutor.Target TEAM_A = new WorkspaceToolExecutor.Target("a", "lead", null);
    private static final WorkspaceToolExecutor.Target TEAM_B = new WorkspaceToolExecutor.Target("b", "lead", null);

    @Test
    void aMissingFileHasNoRulesAndAGoodOneGivesItsRulesNamedAfterTheFile() {
        WorkspacePermissionSettings settings = new WorkspacePermissionSettings(".cohort/settings.json");
        File f = new File();
        f.error = "file not found: .cohort/settings.json";
        assertThat(settings.read(f, TEAM_A)).isEqualTo(new WorkspacePermissionSettings.Result(PermissionRuleSet.EMPTY,
                List.of(), null, false));

        f.error = null;
        f.text = """
                {"hooks": {},
                 "permissions": {"deny": ["Bash(curl:*)"], "allow": ["Bash(npm test)"], "ask": ["Edit(src/**)"]}}""";
        WorkspacePermissionSettings.Result r = settings.read(f, TEAM_A);
        assertThat(r.problem()).isNull();
        assertThat(r.rules()).isEqualTo(new PermissionRuleSet(List.of("Bash(npm test)"), List.of("Edit(src/**)"),
                List.of("Bash(curl:*)")));
        assertThat(r.parsed()).extracting(PermissionRule::describe, PermissionRule::origin).containsExactly(
                tuple("deny Bash(curl:*)", ".cohort/settings.json"),
                tuple("ask Edit(src/**)", ".cohort/settings.json"),
                tuple("allow Bash(npm test)", ".cohort/settings.json"));
    }

    @Test
    void aBadRuleKeepsTheTeamsLastGoodRulesAndSaysWhichRuleAndWhy() {
        WorkspacePermissionSettings settings = new WorkspacePermissionSettings(".cohort/settings.json");
        File f = new File();
        f.text = "{\"permissions\": {\"deny\": [\"Bash(curl:*)\"]}}";
        settings.read(f, TEAM_A);

        f.text = "{\"permissions\": {\"deny\": [\"Bash(curl:*\"]}}";
        WorkspacePermissionSettings.Result broken = settings.read(f, TEAM_A);

        assertThat(broken.rules().deny()).containsExactly("Bash(curl:*)");
        assertThat(broken.wholeFile()).isFalse();
        assertThat(broken.problem()).isEqualTo("invalid .cohort/settings.json: permissions.deny[0] 'Bash(curl:*':"
                + " the specifier misses its closing ')'; the last valid permission rules of it stay in force"
                + " (0 allow, 0 ask, 1 deny)");
        // another team's file has its own last good rules: none here
        WorkspacePermissionSettings.Result other = settings.read(f, TEAM_B);
        assertThat(other.rules()).isEqualTo(PermissionRuleSet.EMPTY);
        assertThat(other.problem()).endsWith("no valid permission rules of it were read before, so none of its rules"
                + " apply");

        // fixed: its new rules apply at once
        f.text = "{\"permissions\": {\"ask\": [\"Bash(git push:*)\"]}}";
        assertThat(settings.read(f, TEAM_A).rules()).isEqualTo(new PermissionRuleSet(null, List.of("Bash(git push:*)"),
                null));
    }

    @Test
    void aFileThatIsNotJsonOrCannotBeReadKeepsTheLastGoodRulesAsAWholeFileProblem() {
        WorkspacePermissionSettings settings = new WorkspacePermissionSettings(".cohort/settings.json");
        File f = new File();
        f.text = "{\"permissions\": {\"deny\": [\"Read(./secrets/**)\"]}}";
        settings.read(f, TEAM_A);

        f.text = "{\"permissions\": ";
        WorkspacePermissionSettings.Result notJson = settings.read(f, TEAM_A);
        assertThat(notJson.wholeFile()).isTrue();
        assertThat(notJson.problem()).startsWith("invalid .cohort/settings.json: (file) is not valid JSON");
        assertThat(notJson.rules().deny()).containsExactly("Read(./secrets/**)");

        f.thrown = new IllegalStateException("tool runner answered 503");
        WorkspacePermissionSettings.Result down = settings.read(f, TEAM_A);
        assertThat(down.wholeFile()).isTrue();
        assertThat(down.problem()).contains("tool runner answered 503").contains("stay in force (0 allow, 0 ask, 1 deny)");
        assertThat(down.rules().deny()).containsExactly("Read(./secrets/**)");

        // deleting the file removes its rules: a missing file is no rules, not a problem
        f.thrown = null;
        f.error = "not found";
        assertThat(settings.read(f, TEAM_A).rules()).isEqualTo(PermissionRuleSet.EMPTY);
        f.error = null;
        f.text = "{\"permissions\": ";
        assertThat(settings.read(f, TEAM_A).rules()).isEqualTo(PermissionRuleSet.EMPTY);
    }
}
