package dev.cohort.core.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.prompt.PromptInputs;
import dev.cohort.core.engine.prompt.SystemPrompt;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AgentRoleTest {

    /** Declared once per process, as a program declares its role. */
    private static final AgentRole AUDITOR = AgentRole.declare("auditor-test",
            (team, agent) -> "You are '" + agent + "', the auditor of team '" + team + "'.");

    @Test
    void aDeclaredRoleIsFoundByItsNameAndTellsItsIdentityInTheSystemPrompt() {
        assertThat(AgentRole.named("auditor-test")).containsSame(AUDITOR);
        assertThat(AgentRole.named("LEAD")).containsSame(AgentRole.LEAD);
        assertThat(AgentRole.named("nobody")).isEmpty();
        assertThat(AgentRole.named(null)).isEmpty();
        String prompt = SystemPrompt.assemble(new PromptInputs(AUDITOR, "acme", "ada", "", Set.of(), List.of(), false,
                ""));
        assertThat(prompt).startsWith("You are 'ada', the auditor of team 'acme'.");
        assertThat(AgentRole.TEAMMATE.identity("acme", "bob")).contains("'bob', a teammate in the team 'acme'");
    }

    @Test
    void aNameIsDeclaredOnceAndMustBeLowerCaseWords() {
        assertThatThrownBy(() -> AgentRole.declare("lead", (t, a) -> "x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'lead' is declared already");
        for (String bad : new String[] {"Reviewer", "", "9lives", "a b", "x".repeat(41)}) {
            assertThatThrownBy(() -> AgentRole.declare(bad, (t, a) -> "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lower-case");
        }
        assertThatThrownBy(() -> AgentRole.declare(null, (t, a) -> "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AgentRole.declare("no-identity", null)).isInstanceOf(NullPointerException.class);
    }
}
