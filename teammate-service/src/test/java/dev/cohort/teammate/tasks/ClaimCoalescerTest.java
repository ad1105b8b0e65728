package dev.cohort.teammate.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.tasks.ClaimCoalescer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One replica's concurrent auto-claims of a team go to the lead as one batched request. */
class ClaimCoalescerTest {

    /** Every batch the coalescer sent (the claimers' names), and a gate that holds the first one in flight. */
    final List<List<String>> sent = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch release = new CountDownLatch(1);

    private Map<String, LeadTasks.Claim> lead(String team, List<LeadTasks.BatchClaimer> claimers) {
        sent.add(claimers.stream().map(LeadTasks.BatchClaimer::agent).toList());
        if (sent.size() == 1) {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        Map<String, LeadTasks.Claim> out = new HashMap<>();
        for (LeadTasks.BatchClaimer c : claimers) {
            if (!c.agent().startsWith("none")) {
                out.put(c.agent(), new LeadTasks.Claim(null, c.leaseToken(), null, true));
            }
        }
        return out;
    }

    @Test
    void claimsQueuedBehindABatchInFlightGoOutTogetherAndEachGetsItsOwnAnswer() throws Exception {
        ClaimCoalescer co = new ClaimCoalescer(this::lead, 50);
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        Future<Optional<LeadTasks.Claim>> first = pool.submit(() -> co.claim("t", "a", "dev"));
        await().atMost(Duration.ofSeconds(30)).until(() -> sent.size() == 1);
        List<Future<Optional<LeadTasks.Claim>>> others = new ArrayList<>();
        for (String who : List.of("b", "c", "none1", "d")) {
            others.add(pool.submit(() -> co.claim("t", who, null)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> co.queued("t") == 4);
        release.countDown();
        assertThat(first.get()).isPresent();
        assertThat(others.get(0).get()).isPresent();
        assertThat(others.get(2).get()).isEmpty(); // the lead had nothing for it
        for (Future<Optional<LeadTasks.Claim>> f : others) {
            f.get();
        }
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0)).containsExactly("a");
        assertThat(sent.get(1)).containsExactlyInAnyOrder("b", "c", "none1", "d");
        // every claimer asked with a lease token of its own
        assertThat(others.get(0).get().orElseThrow().leaseToken()).isNotEqualTo(others.get(1).get().orElseThrow().leaseToken());
        pool.shutdown();
    }

    @Test
    void theSameAgentTwiceGoesInTwoBatchesAndABatchNeverExceedsItsLimit() throws Exception {
        ClaimCoalescer co = new ClaimCoalescer(this::lead, 2);
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        Future<?> first = pool.submit(() -> co.claim("t", "a", null));
        await().atMost(Duration.ofSeconds(30)).until(() -> sent.size() == 1);
        List<Future<?>> others = new ArrayList<>();
        for (String who : List.of("x", "x", "y")) {
            others.add(pool.submit(() -> co.claim("t", who, null)));
            int n = others.size(); // queued one by one, so the queue's order is the submission order
            await().atMost(Duration.ofSeconds(30)).until(() -> co.queued("t") == n);
        }
        release.countDown();
        first.get();
        for (Future<?> f : others) {
            f.get();
        }
        assertThat(sent).hasSize(3);
        assertThat(sent.get(1)).containsExactly("x", "y");
        assertThat(sent.get(2)).containsExactly("x");
        pool.shutdown();
    }

    @Test
    void aFailedBatchFailsEveryClaimInItAndTheNextClaimIsSentAgain() {
        boolean[] down = {true};
        ClaimCoalescer co = new ClaimCoalescer((team, claimers) -> {
            if (down[0]) {
                throw new IllegalStateException("lead-service unreachable");
            }
            return Map.of(claimers.getFirst().agent(), new LeadTasks.Claim(null, "tok", null, true));
        }, 10);
        assertThatThrownBy(() -> co.claim("t", "a", null)).hasMessage("lead-service unreachable");
        down[0] = false;
        assertThat(co.claim("t", "a", null)).isPresent();
    }

    @Test
    void aBatchLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> new ClaimCoalescer(this::lead, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBatch must be at least 1, not 0");
    }
}
