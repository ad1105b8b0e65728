package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The board's pure rules: ids, new-task validation, lease bounds, and how refusals are explained. */
class TaskRulesTest {

    private static final TestConfig CFG = new TestConfig();
    private static final Instant T = Instant.parse("2025-06-01T10:00:00Z");

    private static TaskRow task(long id, String status, String owner, String token, boolean expired, List<Long> unmet) {
        return new TaskRow(id, "t", "subject " + id, "", status, owner, unmet, unmet, token,
                "in_progress".equals(status) ? T : null, expired, null, null, null, 1, 1, "lead", T, T, null, null, null);
    }

    @Test
    void taskIdsAcceptOnlyTheSequenceForm() {
        assertThat(TaskIds.parse("task_42")).isEqualTo(OptionalLong.of(42));
        assertThat(TaskIds.parse(" 7 ")).isEqualTo(OptionalLong.of(7));
        assertThat(List.of("../x", "task_", "task_1_0042", "task_1;drop", "", "task_1234567890123456789"))
                .allSatisfy(bad -> assertThat(TaskIds.parse(bad)).isEmpty());
        assertThat(TaskIds.format(3)).isEqualTo("task_3");
    }

    @Test
    void aNewTaskNeedsASubjectAndStaysWithinTheCapsWithEveryProblemNamedAtOnce() {
        assertThatThrownBy(() -> TaskRules.validateNew("  ", "x".repeat(8001), List.of("../etc/passwd"), CFG))
                .isInstanceOfSatisfying(TaskRefusal.class, r -> {
                    assertThat(r.code()).isEqualTo(TaskRefusal.Code.INVALID);
                    assertThat(r.getMessage()).isEqualTo("subject is required (a one-line title); description is longer "
                            + "than 8000 characters; blockedBy entry \"../etc/passwd\" is not a task id (task_<number>)");
                });
        assertThatThrownBy(() -> TaskRules.validateNew("s".repeat(201), "", List.of(), CFG))
                .hasMessageContaining("subject is longer than 200 characters");
        assertThatThrownBy(() -> TaskRules.validateNew("two\nlines", "", List.of(), CFG))
                .hasMessageContaining("subject must be one line");
        List<String> many = IntStream.rangeClosed(1, 33).mapToObj(i -> "task_" + i).toList();
        assertThatThrownBy(() -> TaskRules.validateNew("s", "", many, CFG))
                .hasMessage("at most 32 dependencies per task, got 33");
    }

    @Test
    void aNewTaskIsNormalisedWithDependenciesDeduplicatedAndSorted() {
        TaskRules.NewTask t = TaskRules.validateNew("  write docs ", null, List.of("task_9", "3", "task_3"), CFG);
        assertThat(t.subject()).isEqualTo("write docs");
        assertThat(t.description()).isEmpty();
        assertThat(t.blockedBy()).containsExactly(3, 9);
    }

    @Test
    void leasesDefaultAndStayWithinTheConfiguredBounds() {
        assertThat(TaskRules.leaseMillis(null, CFG)).isEqualTo(300_000.0);
        assertThat(TaskRules.leaseMillis(1.5, CFG)).isEqualTo(1500.0);
        assertThatThrownBy(() -> TaskRules.leaseMillis(0.5, CFG)).hasMessage("leaseSeconds must be between 1s and 3600s, got 0.5");
        assertThatThrownBy(() -> TaskRules.leaseMillis(3601.0, CFG)).isInstanceOf(TaskRefusal.class);
        assertThatThrownBy(() -> TaskRules.leaseMillis(Double.NaN, CFG)).isInstanceOf(TaskRefusal.class);
    }

    @Test
    void aClaimIsExplainedInTheOrderStatusThenOwnerThenDependencies() {
        Holder bob = Holder.withLease("bob", "b1");
        TaskRefusal done = TaskRules.whyNotClaimable(task(1, "completed", "alice", "a1", false, List.of()), bob, Map.of());
        assertThat(done.code()).isEqualTo(TaskRefusal.Code.STATUS);
        assertThat(done.getMessage()).isEqualTo("task_1 (subject 1) is already completed by alice; nothing to claim");

        TaskRefusal owned = TaskRules.whyNotClaimable(task(2, "in_progress", "alice", "a1", false, List.of()), bob, Map.of());
        assertThat(owned.code()).isEqualTo(TaskRefusal.Code.OWNED);
        assertThat(owned.owner()).isEqualTo("alice");
        assertThat(owned.getMessage()).isEqualTo("task_2 (subject 2) is already claimed by alice; pick another task");

        TaskRefusal otherLease = TaskRules.whyNotClaimable(task(2, "in_progress", "bob", "b0", false, List.of()), bob, Map.of());
        assertThat(otherLease.code()).isEqualTo(TaskRefusal.Code.LEASE_MISMATCH);

        TaskRow dep = task(3, "in_progress", "alice", "a1", false, List.of());
        TaskRefusal blocked = TaskRules.whyNotClaimable(task(5, "pending", null, null, false, List.of(3L, 4L)), bob,
                Map.of(3L, dep));
        assertThat(blocked.code()).isEqualTo(TaskRefusal.Code.BLOCKED);
        assertThat(blocked.blockers()).containsExactly(new TaskRefusal.Blocker("task_3", "subject 3", "in_progress"),
                new TaskRefusal.Blocker("task_4", null, null));
        assertThat(blocked.getMessage()).isEqualTo("task_5 (subject 5) is blocked by task_3 (subject 3) [in_progress], "
                + "task_4 (does not exist); complete those first");
    }

    @Test
    void anExpiredClaimOfSomeoneElseCountsAsFreeSoNothingExplainsARefusal() {
        TaskRow expired = task(6, "in_progress", "alice", "a1", true, List.of());
        assertThat(expired.effectiveStatus()).isEqualTo("pending");
        assertThat(expired.effectiveOwner()).isNull();
        assertThat(expired.claimable()).isTrue();
        assertThat(TaskRules.whyNotClaimable(expired, Holder.withLease("bob", "b1"), Collections.emptyMap())).isNull();
    }

    @Test
    void onlyTheHolderCompletesAndARepeatByTheHolderIsNotARefusal() {
        TaskRow held = task(7, "in_progress", "alice", "a1", false, List.of());
        assertThat(TaskRules.whyNotCompletable(held, Holder.byName("lead")))
                .satisfies(r -> {
                    assertThat(r.code()).isEqualTo(TaskRefusal.Code.NOT_OWNER);
                    assertThat(r.owner()).isEqualTo("alice");
                    assertThat(r.getMessage()).isEqualTo("task_7 (subject 7) is held by alice; only the holder can complete it");
                });
        assertThat(TaskRules.whyNotCompletable(held, Holder.withLease("alice", "stale")).code())
                .isEqualTo(TaskRefusal.Code.LEASE_MISMATCH);
        assertThat(TaskRules.whyNotCompletable(task(7, "in_progress", "alice", "a1", true, List.of()),
                Holder.withLease("alice", "a1")).code()).isEqualTo(TaskRefusal.Code.LEASE_EXPIRED);
        assertThat(TaskRules.whyNotCompletable(task(8, "pending", null, null, false, List.of()), Holder.byName("lead"))
                .getMessage()).startsWith("task_8 (subject 8) is pending: nobody holds it");
        TaskRow completed = task(9, "completed", "alice", "a1", false, List.of());
        assertThat(TaskRules.whyNotCompletable(completed, Holder.withLease("alice", "a1"))).isNull();
        assertThat(TaskRules.whyNotCompletable(completed, Holder.withLease("bob", "b1")).code())
                .isEqualTo(TaskRefusal.Code.STATUS);
    }

    @Test
    void releasingAFreeTaskIsANoOpButSomeoneElsesIsRefused() {
        assertThat(TaskRules.whyNotReleasable(task(1, "pending", null, null, false, List.of()), Holder.byName("x"))).isNull();
        assertThat(TaskRules.whyNotReleasable(task(1, "in_progress", "alice", "a1", false, List.of()),
                Holder.withLease("bob", "b")).code()).isEqualTo(TaskRefusal.Code.NOT_OWNER);
        assertThat(TaskRules.whyNotRenewable(task(1, "pending", null, null, false, List.of()),
                Holder.withLease("bob", "b")).code()).isEqualTo(TaskRefusal.Code.LEASE_EXPIRED);
    }
}
