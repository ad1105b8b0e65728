package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.engine.prompt.PromptInputs;
import dev.cohort.core.engine.prompt.SystemPrompt;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.Skill;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Conversation repair, the stuck guard and system prompt assembly: pure functions. */
class PureUnitsTest {
    private static final ModelToolCall A = new ModelToolCall("a", "bash", "{}");
    private static final ModelToolCall B = new ModelToolCall("b", "glob", "{}");
    /** The tools a lead is offered, as far as the prompt looks at them. */
    private static final Set<String> LEAD_TOOLS = Set.of("bash", "read_file", "write_file", "todo_write",
            "spawn_subagent", "load_skill", "compact", "schedule_cron", "create_task", "spawn_teammate", "send_message");

    @Test
    void repairFillsMissingResultsInCallOrderAndDropsOrphansAndDuplicates() {
        List<Message> broken = List.of(Message.user("u"), Message.tool("zz", "bash", "orphan", false),
                Message.assistant(null, List.of(A, B)), Message.tool("b", "glob", "B", false),
                Message.tool("b", "glob", "B again", false), Message.user("next"));

        assertThat(Conversation.repair(broken)).containsExactly(Message.user("u"), Message.assistant(null, List.of(A, B)),
                Message.tool("a", "bash", Conversation.MISSING_RESULT, true), Message.tool("b", "glob", "B", false),
                Message.user("next"));
    }

    @Test
    void repairReturnsTheSameListWhenNothingIsWrongAndPendingCallsAreTheUnansweredOnes() {
        List<Message> ok = List.of(Message.user("u"), Message.assistant("x", List.of(A, B)),
                Message.tool("a", "bash", "A", false), Message.tool("b", "glob", "B", false));
        assertThat(Conversation.repair(ok)).isSameAs(ok);
        assertThat(Conversation.pendingCalls(ok.subList(0, 3))).containsExactly(B);
        assertThat(Conversation.pendingCalls(ok)).isEmpty();
    }

    @Test
    void theStuckGuardCountsIdenticalCallsAndIdenticalErrorsInARow() {
        StuckGuard.State s = StuckGuard.State.EMPTY;
        s = StuckGuard.observe(s, "bash {\"c\":1}", null);
        s = StuckGuard.observe(s, "bash {\"c\":1}", null);
        assertThat(StuckGuard.verdict(s, 3, 5)).isEqualTo(StuckGuard.Verdict.OK);
        s = StuckGuard.observe(s, "bash {\"c\":1}", null);
        assertThat(StuckGuard.verdict(s, 3, 5)).isEqualTo(StuckGuard.Verdict.NOTICE);
        s = StuckGuard.observe(s, "bash {\"c\":2}", "Error: boom");
        assertThat(s).extracting(StuckGuard.State::lastCall, StuckGuard.State::sameCall, StuckGuard.State::lastError,
                StuckGuard.State::sameError).containsExactly("bash {\"c\":2}", 1, "Error: boom", 1);
        for (int i = 3; i < 7; i++) {
            s = StuckGuard.observe(s, "bash {\"c\":" + i + "}", "Error: boom");
        }
        assertThat(s.sameError()).isEqualTo(5);
        assertThat(StuckGuard.verdict(s, 3, 5)).isEqualTo(StuckGuard.Verdict.END);
    }

    @Test
    void thePromptOmitsEmptySectionsIsOsNeutralAndDiffersPerRole() {
        PromptInputs lead = new PromptInputs(AgentRole.LEAD, "default", "lead", "the team repo", LEAD_TOOLS,
                List.of(), false, "");
        assertThat(SystemPrompt.sections(lead).keySet()).containsExactly("identity", "workspace", "tools");
        String p = SystemPrompt.assemble(lead);
        assertThat(p).doesNotContainIgnoringCase("windows").doesNotContain("cmd ").contains("lead agent of the team 'default'")
                .contains("todo_write").doesNotContain("load_skill and follow");
        PromptInputs teammate = new PromptInputs(AgentRole.TEAMMATE, "t", "alice", "", Set.of("bash"),
                List.of(new Skill("commit", "Write a commit", null, "body", "bundled")), true, "lead: lead");
        assertThat(SystemPrompt.sections(teammate).keySet()).containsExactly("identity", "skills", "memory", "team");
        assertThat(SystemPrompt.assemble(teammate)).contains("You are 'alice', a teammate").contains("- commit: Write a commit");
    }

    @Test
    void thePrefixIsCachedOnItsInputsAndPerCallContentGoesAfterIt() {
        PromptCache cache = new PromptCache();
        PromptInputs in = new PromptInputs(AgentRole.LEAD, "default", "lead", "ws", Set.of("bash"), List.of(), false, "");
        String first = cache.forCall(in, List.of("<reminder>m</reminder>"));
        String second = cache.forCall(new PromptInputs(AgentRole.LEAD, "default", "lead", "ws", Set.of("bash"), List.of(),
                false, ""), List.of(""));
        assertThat(first).startsWith(second).endsWith("\n\n<reminder>m</reminder>");
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
        cache.prefix(new PromptInputs(AgentRole.LEAD, "default", "lead", "ws", Set.of("bash"), List.of(), true, ""));
        assertThat(cache.misses()).isEqualTo(2);
    }
}
