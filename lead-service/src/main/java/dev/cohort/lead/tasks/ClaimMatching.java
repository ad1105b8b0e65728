package dev.cohort.lead.tasks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which claimer of a batched claim takes which candidate task: a maximum matching between the
 * candidates (free, unblocked, in id order) and the claimers, every pair eligible (role / assignee), found by
 * augmenting paths taken in id order (Kuhn). A task matched once stays matched while later ones are added, so the
 * set of tasks given out is the oldest one possible: with one claimer it is claim-next's "oldest task it may take",
 * and a generic task taken by a tester never leaves a tester-only task unclaimed when a developer could have taken the
 * generic one. Pure: the repository locks the candidates, this decides, one update applies it.
 */
public final class ClaimMatching {
    private ClaimMatching() {
    }

    /** A candidate task: its id, and the role / assignee it names (null = anybody). */
    public record Candidate(long id, String role, String assignee) {
        boolean eligible(Claimer c) {
            return (assignee == null || assignee.equals(c.agent())) && (role == null || role.equals(c.role()));
        }
    }

    /** A claimer: the agent, its role as its host knows it (null: none). */
    public record Claimer(String agent, String role) {
    }

    /**
     * For each claimer (by index) the index of the candidate it takes, or -1. {@code candidates} in id order; the
     * result is a maximum matching and, among those, the one that gives out the oldest candidates.
     */
    public static int[] match(List<Candidate> candidates, List<Claimer> claimers) {
        int n = claimers.size();
        int[] taskOf = new int[n];
        Arrays.fill(taskOf, -1);
        int[] claimerOf = new int[candidates.size()];
        Arrays.fill(claimerOf, -1);
        List<List<Integer>> who = new ArrayList<>(candidates.size());
        for (Candidate t : candidates) {
            List<Integer> e = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (t.eligible(claimers.get(i))) {
                    e.add(i);
                }
            }
            who.add(e);
        }
        int matched = 0;
        for (int t = 0; t < candidates.size() && matched < n; t++) {
            if (augment(t, who, taskOf, claimerOf, new boolean[n])) {
                matched++;
            }
        }
        return taskOf;
    }

    /** Finds a claimer for task {@code t}, moving already matched claimers to other tasks if that frees one. */
    private static boolean augment(int t, List<List<Integer>> who, int[] taskOf, int[] claimerOf, boolean[] seen) {
        for (int c : who.get(t)) { // a free claimer first, in claimer order: nobody moves when nobody has to
            if (!seen[c] && taskOf[c] < 0) {
                seen[c] = true;
                taskOf[c] = t;
                claimerOf[t] = c;
                return true;
            }
        }
        for (int c : who.get(t)) {
            if (seen[c]) {
                continue;
            }
            seen[c] = true;
            if (taskOf[c] < 0 || augment(taskOf[c], who, taskOf, claimerOf, seen)) {
                taskOf[c] = t;
                claimerOf[t] = c;
                return true;
            }
        }
        return false;
    }
}
