package dev.cohort.core.engine.bench;

import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.ParkedFleet;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * Heap after GC for many agents parked on approvals, in two setups: (a) the host keeps only each agent's
 * saved state JSON (what a real host keeps, as database rows; here the strings), (b) the host keeps every
 * {@link AgentSession} open. Each agent has an idle history of {@code rounds} earlier rounds (user request,
 * assistant tool call, tool result, final answer; each text about {@code chars} characters) before the turn that
 * parks on a destructive call. Turns run on virtual threads; in-process model and tool ({@link ParkedFleet}), no
 * HTTP. Not a unit test; run (same classpath as {@link EngineBenchmark}):
 * {@code java -Xmx1g -cp "$(cat core/target/cp.txt):core/target/classes:core/target/test-classes"
 * dev.cohort.core.engine.bench.ParkedAgentsBenchmark [agents=1000] [rounds=20] [chars=300]}.
 */
public final class ParkedAgentsBenchmark {
    private static final double MIB = 1024.0 * 1024.0;

    private ParkedAgentsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int agents = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int chars = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        System.out.printf("agents=%d history rounds=%d (%d messages) chars per text≈%d; JDK %s, GC %s, max heap %.0f "
                + "MiB%n", agents, rounds, rounds * 4, chars, Runtime.version(), ManagementFactory
                .getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList(),
                Runtime.getRuntime().maxMemory() / MIB);

        // warm-up: load the classes and JIT the path, then drop everything
        park(new ParkedFleet(), 50, rounds, chars, false);
        long base = heapAfterGc();
        System.out.printf("baseline heap after GC: %.1f MiB%n", base / MIB);

        // (a) the host keeps only the saved JSON
        ParkedFleet a = new ParkedFleet();
        long t0 = System.nanoTime();
        park(a, agents, rounds, chars, false);
        long parkNanos = System.nanoTime() - t0;
        long jsonChars = a.saved.values().stream().mapToLong(String::length).sum();
        long heapA = heapAfterGc();
        report("(a) saved JSON only", agents, heapA, base);
        System.out.printf("    JSON per agent: %.1f KiB (%.1f MiB in all); all %d turns up to their park: %.0f ms wall "
                + "on virtual threads (%.0f agents/s)%n", jsonChars / (double) agents / 1024, jsonChars / MIB, agents,
                parkNanos / 1e6, agents / (parkNanos / 1e9));
        Reference.reachabilityFence(a);
        a = null;

        // (b) the host keeps the sessions open (the saved JSON dropped, so the figure is the sessions' alone)
        ParkedFleet b = new ParkedFleet();
        List<AgentSession> open = park(b, agents, rounds, chars, true);
        b.saved.clear();
        long heapB = heapAfterGc();
        report("(b) open sessions", agents, heapB, base);
        Reference.reachabilityFence(open);
        Reference.reachabilityFence(b);
    }

    /** Parks {@code n} agents with a history each; returns the sessions when {@code keep}, else none. */
    private static List<AgentSession> park(ParkedFleet fleet, int n, int rounds, int chars, boolean keep)
            throws Exception {
        List<Future<AgentSession>> futures = new ArrayList<>(n);
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String agent : IntStream.range(0, n).mapToObj(i -> "a" + i).toList()) {
                futures.add(ex.submit(() -> {
                    AgentSession s = fleet.engine.open(fleet.context(agent), ParkedFleet.history(agent, rounds, chars));
                    TurnResult r = s.run(ParkedFleet.REQUEST);
                    if (r.reason() != StopReason.PARKED || s.waiting().isEmpty()) {
                        throw new IllegalStateException(agent + " did not park: " + r);
                    }
                    return keep ? s : null;
                }));
            }
        }
        List<AgentSession> sessions = new ArrayList<>(keep ? n : 0);
        for (Future<AgentSession> f : futures) {
            AgentSession s = f.get();
            if (keep) {
                sessions.add(s);
            }
        }
        if (fleet.saved.size() != n || !fleet.runs.isEmpty()
                || AgentState.fromJson(fleet.saved.get("a0")).turn().waiting() == null) {
            throw new IllegalStateException("expected " + n + " parked agents and no call run");
        }
        return sessions;
    }

    private static void report(String setup, int agents, long heap, long base) {
        System.out.printf("%s: heap after GC %.1f MiB (pools after their last GC: %.1f MiB); +%.1f MiB over the "
                + "baseline, %.1f KiB per agent%n", setup, heap / MIB, poolsAfterLastGc() / MIB, (heap - base) / MIB,
                (heap - base) / 1024.0 / agents);
    }

    /**
     * Heap in use right after full collections: {@code System.gc()} until the MemoryMXBean's figure stops falling
     * (at most 10 times).
     */
    private static long heapAfterGc() {
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            boolean stable = used >= last - 64 * 1024;
            last = Math.min(used, last);
            if (stable) {
                break;
            }
        }
        return last;
    }

    /** The same from the collectors' side: the heap pools' usage after their last collection (a cross-check). */
    private static long poolsAfterLastGc() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                sum += p.getCollectionUsage().getUsed();
            }
        }
        return sum;
    }
}
