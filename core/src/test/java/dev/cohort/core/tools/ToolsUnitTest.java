package dev.cohort.core.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.tools.skills.Frontmatter;
import dev.cohort.core.tools.skills.Skill;
import dev.cohort.core.tools.skills.SkillLibrary;
import dev.cohort.core.tools.todo.TodoItem;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Registry, argument validation, todo rules and skill parsing. */
class ToolsUnitTest {

    @Test
    void theRegistryFailsAtStartUpOnADuplicateName() {
        assertThatThrownBy(() -> ToolRegistry.of(WorkspaceToolsFixture.tool("bash"), WorkspaceToolsFixture.tool("read_file"),
                WorkspaceToolsFixture.tool("bash")))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("duplicate tool name 'bash'");
    }

    @Test
    void aDeferredRegistryLearnsItsToolsOnFirstUseAndAsksAgainAfterAFailedOne() {
        AtomicInteger asked = new AtomicInteger();
        ToolRegistry r = ToolRegistry.deferred(() -> {
            if (asked.incrementAndGet() == 1) {
                throw new IllegalStateException("cannot read the tool runner's catalogue: connection refused");
            }
            return List.of(WorkspaceToolsFixture.tool("bash"), new TodoWriteTool());
        });
        assertThat(asked).hasValue(0); // nothing is asked for when it is made
        assertThatThrownBy(r::names).hasMessageContaining("connection refused");
        assertThat(r.names()).containsExactly("bash", "todo_write");
        assertThat(r.find("bash")).isPresent();
        assertThat(asked).hasValue(2); // kept once read
        ToolRegistry twice = ToolRegistry.deferred(() -> List.of(new TodoWriteTool(), new TodoWriteTool()));
        assertThatThrownBy(twice::names).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("duplicate tool name 'todo_write'");
    }

    @Test
    void theRegistryOffersOnlyAllowedToolsInRegistrationOrder() {
        ToolRegistry r = ToolRegistry.of(WorkspaceToolsFixture.tool("bash"), WorkspaceToolsFixture.tool("read_file"),
                new TodoWriteTool());
        assertThat(r.specs(Set.of("todo_write", "bash")).stream().map(s -> s.name())).containsExactly("bash", "todo_write");
    }

    @Test
    void argumentsAreCheckedAgainstTheSchemaIncludingNestedItems() {
        var schema = new TodoWriteTool().spec().parameters();
        assertThat(ToolArguments.parse("{\"todos\":[{\"content\":\"a\",\"status\":\"done\"},{\"status\":\"pending\"}]}",
                schema).problems()).containsExactly(
                "argument 'todos[0].status' must be one of [pending, in_progress, completed], got \"done\"",
                "missing required argument 'todos[1].content'");
        assertThat(ToolArguments.parse("[1]", schema).problems()).containsExactly("arguments must be a JSON object, got an array");
        assertThat(ToolArguments.parse("", WorkspaceToolsFixture.tool("read_file").spec().parameters()).problems())
                .containsExactly("missing required argument 'path'");
        assertThat(ToolArguments.parse("{\"path\":\"a\",\"limit\":5}", WorkspaceToolsFixture.tool("read_file").spec().parameters()).ok()).isTrue();
    }

    @Test
    void aTodoListIsValidatedAllOrNothingWithAtMostOneInProgress() {
        TodoList list = new TodoList(List.of(new TodoItem("a", "pending")));
        assertThatThrownBy(() -> list.replace(List.of(new TodoItem("x", "in_progress"), new TodoItem("y", "in_progress"),
                new TodoItem("", "pending")))).hasMessage("todos[2] has no content; only one todo may be in_progress at a time, found 2");
        assertThat(list.items()).containsExactly(new TodoItem("a", "pending"));
        list.replace(List.of(new TodoItem("a", "completed")));
        assertThat(list.hasUnfinished()).isFalse();
    }

    @Test
    void frontmatterIsRealYamlAndTheBodyLeavesItOut() {
        Skill s = Frontmatter.toSkill("dir", "\uFEFF---\r\nname: review\r\ndescription: >\r\n  multi\r\n  line --- ok\r\n"
                + "when_to_use: \"always\"\r\n---\r\n# Body\r\ntext\r\n", "workspace");
        assertThat(s).isEqualTo(new Skill("review", "multi line --- ok", "always", "# Body\ntext", "workspace"));
        assertThat(Frontmatter.toSkill("plain", "# Plain skill\nbody", "bundled").description()).isEqualTo("Plain skill");
        assertThat(Frontmatter.toSkill("x", "---\ndescription: d\n---\n", "bundled").name()).isEqualTo("x");
    }

    @Test
    void bundledSkillsAreOnTheClasspath() {
        assertThat(SkillLibrary.loadBundled(getClass().getClassLoader())).extracting(Skill::name)
                .contains("code-review", "commit");
    }
}
