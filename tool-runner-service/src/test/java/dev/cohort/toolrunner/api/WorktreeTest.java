package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.persistence.WorktreeStore;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Worktrees: isolation, branch names, refusal rules, events. */
@QuarkusTest
class WorktreeTest {
    @Inject
    WorktreeStore store;

    private static String sh(String team, String cwd, String command) {
        ToolCallResult r = call("bash", team, "lead", cwd, args("command", command));
        assertThat(r.error()).as(command).isNull();
        return r.output();
    }

    @Test
    void twoWorktreesIsolateEditsAndRemoveRefusesWorkUnlessDiscarded() throws Exception {
        String team = newTeam();
        sh(team, null, "echo base > README.md && git add README.md && git commit -qm readme");
        ToolCallResult a = call("create_worktree", team, args("name", "poem", "task_id", "task-1"));
        assertThat(a.error()).isNull();
        assertThat(a.output()).startsWith("Created worktree 'poem' on branch wt/poem from ").contains("\"cwd\":\"wt:poem\"");
        assertThat(call("create_worktree", team, args("name", "math")).error()).isNull();

        // edits are isolated
        assertThat(call("write_file", team, "lead", "wt:poem", args("path", "README.md", "content", "a poem\n")).error()).isNull();
        assertThat(call("edit_file", team, "lead", "wt:math", args("path", "README.md", "old_text", "base", "new_text", "1+1=2")).error()).isNull();
        Path ws = Calls.workspace(team);
        assertThat(ws.resolve("README.md")).hasContent("base");
        assertThat(sh(team, "wt:poem", "cat README.md")).isEqualTo("a poem\n");
        assertThat(sh(team, "wt:math", "cat README.md")).isEqualTo("1+1=2\n");
        assertThat(sh(team, "wt:poem", "git -C . branch --show-current")).isEqualTo("wt/poem\n");
        assertThat(sh(team, "wt:math", "git branch --show-current")).isEqualTo("wt/math\n");
        // outside the main working tree, and '..' cannot reach back into it
        String wtDir = sh(team, "wt:poem", "pwd").strip();
        assertThat(Path.of(wtDir).startsWith(Calls.root())).isFalse();
        assertThat(call("write_file", team, "lead", "wt:poem", args("path", "../../x", "content", "x")).error())
                .contains("rule: workspace-containment");
        assertThat(sh(team, null, "git status --porcelain")).isEmpty();

        // dirty: refused
        assertThat(call("remove_worktree", team, args("name", "poem")).error())
                .contains("has 1 uncommitted file(s) and 0 commit(s)").contains("rule: worktree-has-work");
        // committed but not merged: refused too (the tutorial deleted such work)
        sh(team, "wt:math", "git commit -qam math");
        assertThat(call("remove_worktree", team, args("name", "math")).error())
                .contains("has 0 uncommitted file(s) and 1 commit(s) not in its base").contains("rule: worktree-has-work");
        // discard_changes removes both
        assertThat(call("remove_worktree", team, args("name", "poem", "discard_changes", true)).output())
                .isEqualTo("Removed worktree 'poem' and branch wt/poem");
        assertThat(call("remove_worktree", team, args("name", "math", "discard_changes", true)).error()).isNull();
        assertThat(Files.exists(Path.of(wtDir))).isFalse();
        assertThat(sh(team, null, "git branch --list 'wt/*'")).isEmpty();
        assertThat(call("list_worktrees", team, args()).output()).isEqualTo("(no worktrees)");
        assertThat(store.events(team, "poem")).extracting(WorktreeStore.EventRow::event).containsExactly("create", "remove");
        assertThat(store.events(team, "poem").get(0).taskId()).isEqualTo("task-1");
        assertThat(store.events(team, "poem").get(0).baseCommit()).matches("[0-9a-f]{40}");
    }

    @Test
    void aCleanWorktreeIsRemovedWithoutDiscardAndKeepRequiresExistence() {
        String team = newTeam();
        assertThat(call("keep_worktree", team, args("name", "ghost")).error()).contains("does not exist")
                .contains("rule: worktree-not-found");
        assertThat(call("create_worktree", team, args("name", "clean")).error()).isNull();
        assertThat(call("keep_worktree", team, args("name", "clean")).output()).startsWith("Kept worktree 'clean' for review (branch wt/clean");
        assertThat(call("list_worktrees", team, args()).output()).contains("\"name\":\"clean\"").contains("\"status\":\"kept\"");
        assertThat(call("create_worktree", team, args("name", "clean")).error()).contains("rule: worktree-exists");
        assertThat(call("remove_worktree", team, args("name", "clean")).output()).isEqualTo("Removed worktree 'clean' and branch wt/clean");
        assertThat(call("remove_worktree", team, args("name", "clean")).error()).contains("rule: worktree-not-found");
    }

    @Test
    void createUsesAnExplicitBaseAndValidatesNamesAndBases() {
        String team = newTeam();
        sh(team, null, "git commit -q --allow-empty -m second && git tag v1 HEAD~1");
        String first = sh(team, null, "git rev-parse v1").strip();
        ToolCallResult r = call("create_worktree", team, args("name", "old", "base", "v1"));
        assertThat(r.output()).contains("from " + first);
        assertThat(sh(team, "wt:old", "git log -1 --format=%s")).isEqualTo("cohort: initial commit (worktrees need one)\n");
        for (String bad : new String[] {"", "..", ".hidden", "-x", "a/b", "a..b", "x".repeat(65), "name.lock", "sp ace"}) {
            assertThat(call("create_worktree", team, args("name", bad)).error()).as(bad).contains("rule: invalid-worktree-name");
        }
        assertThat(call("create_worktree", team, args("name", "nb", "base", "no-such-branch")).error()).contains("rule: unknown-base");
        assertThat(call("create_worktree", team, args("name", "nb", "base", "--upload-pack=x")).error()).contains("rule: bad-argument");
    }
}
