package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.lead.agent.LeadEngine;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The lead's engine is built from {@code cohort.engine.*}: the test profile sets only
 * {@code %test.cohort.engine.approval-timeout=15s}; everything else is the records' defaults.
 */
@QuarkusTest
class EngineConfigWiringTest {

    @Inject
    LeadEngine lead;

    @Test
    void theLeadsEngineTakesItsSettingsFromTheEngineConfiguration() {
        EngineSettings s = lead.engine().settings();
        EngineSettings d = EngineSettings.defaults();
        assertThat(s.approvalTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.withApprovalTimeout(d.approvalTimeout()).withModel(null).withRecovery(d.recovery()))
                .isEqualTo(d);
        assertThat(s.budgets()).isEqualTo(Budgets.defaults());
        assertThat(s.compaction()).isEqualTo(CompactionSettings.defaults());
    }

    @Test
    void theLeadsEngineHasTheRunnersWorkspaceToolsThenThoseOfEveryProviderServingTheLead() {
        assertThat(lead.engine().tools().names()).containsExactly("bash", "cancel_background", "check_background",
                "create_worktree", "edit_file", "file_tree", "glob", "grep", "keep_worktree", "list_worktrees",
                "read_file", "remove_worktree", "write_file", "todo_write", "load_skill", "spawn_subagent",
                "compact", "memory_write", "memory_delete", "schedule_cron", "list_crons", "cancel_cron", "create_task",
                "list_tasks", "get_task", "claim_task", "complete_task", "spawn_teammate", "send_message",
                "check_inbox", "request_shutdown", "request_plan", "review_plan");
        assertThat(lead.engine().tools().all()).allSatisfy(t -> assertThat(t.roles()).contains(AgentRole.LEAD));
        // the runner's worktree tools, extended by the board
        assertThat(lead.engine().tools().find("create_worktree").orElseThrow().getClass().getSimpleName())
                .isEqualTo("BoundCreateWorktreeTool");
        assertThat(lead.engine().tools().find("remove_worktree").orElseThrow().getClass().getSimpleName())
                .isEqualTo("BoundRemoveWorktreeTool");
    }

    @Test
    void theLeadsScheduleCronAsksAPersonForEveryJobByDefault() {
        Tool schedule = lead.engine().tools().find("schedule_cron").orElseThrow();
        PermissionSubject subject = schedule.permissionSubject(Json.MAPPER.createObjectNode().put("cron", "@daily")
                .put("prompt", "report"));

        // cohort.lead.model-cron-jobs is unset in the test profile: the default, ask
        assertThat(subject).isInstanceOf(PermissionSubject.Persistent.class);
        assertThat(((PermissionSubject.Persistent) subject).rule()).isEqualTo("model-cron-job");
    }
}
