package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.lead.tasks.ClaimMatching.Candidate;
import dev.cohort.lead.tasks.ClaimMatching.Claimer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pairing of a batched claim: eligible pairs only, as many as possible, oldest tasks first. */
class ClaimMatchingTest {

    @Test
    void eachClaimerTakesTheOldestTaskLeftWhenNobodyNamesARole() {
        int[] m = ClaimMatching.match(List.of(new Candidate(1, null, null), new Candidate(2, null, null),
                new Candidate(3, null, null)), List.of(new Claimer("a", "dev"), new Claimer("b", "dev")));
        assertThat(m).containsExactly(0, 1);
    }

    @Test
    void aGenericTaskGoesToTheClaimerThatCannotTakeTheRoleTask() {
        // task 1 anybody's, task 2 only a tester's: greedy would give 1 to the tester and leave 2; the matching
        // moves the tester to 2 and the developer takes 1
        int[] m = ClaimMatching.match(List.of(new Candidate(1, null, null), new Candidate(2, "tester", null)),
                List.of(new Claimer("t", "tester"), new Claimer("d", "dev")));
        assertThat(m).containsExactly(1, 0);
    }

    @Test
    void aTaskForAnAssigneeOrAnotherRoleIsNeverGivenToSomeoneElse() {
        int[] m = ClaimMatching.match(List.of(new Candidate(1, null, "bob"), new Candidate(2, "tester", null)),
                List.of(new Claimer("alice", "dev"), new Claimer("carol", null)));
        assertThat(m).containsExactly(-1, -1);
        int[] bob = ClaimMatching.match(List.of(new Candidate(1, null, "bob"), new Candidate(2, "tester", null)),
                List.of(new Claimer("alice", "dev"), new Claimer("bob", "tester")));
        assertThat(bob).containsExactly(-1, 0);
    }

    @Test
    void moreClaimersThanTasksLeavesTheLaterClaimersWithoutOne() {
        int[] m = ClaimMatching.match(List.of(new Candidate(7, null, null)),
                List.of(new Claimer("a", null), new Claimer("b", null), new Claimer("c", null)));
        assertThat(m).containsExactly(0, -1, -1);
    }
}
