package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.Test;

/**
 * How the tool layer scales with teams, run on demand:
 * {@code ./mvnw -B -pl tool-runner-service verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=TeamScaleBenchmarkIT -Dcohort.bench=true} (options {@code -Dcohort.bench.teams=1,10,50},
 * {@code -Dcohort.bench.replicas=1,2}, {@code -Dcohort.bench.seconds=10}, {@code -Dcohort.bench.env=K=V,...},
 * {@code -Dcohort.bench.bash-only=true}: each caller loops {@code bash true} alone, so the CPU per call is a bash call's).
 *
 * <p>The <b>packaged</b> runner, 1 or 2 replicas on one devstack (one PostgreSQL journal, one workspace root), the way
 * {@code cohort up} starts it; N teams call at once, each one caller in a loop of {@code bash true} and
 * {@code read_file} of 4 KB, team i on replica i mod R. Printed per row: calls per second in all, p50/p99 of each
 * operation, the machine's CPU per call ({@code /proc/stat}). Then: the first call of a team whose sandbox is not
 * running (its sandbox starts), p50/p99 over the teams; the memory of an idle team sandbox (RSS and PSS of its
 * processes, from {@code /proc/<pid>/smaps_rollup}).
 */
@EnabledIfSystemProperty(named = "cohort.bench", matches = "true")
class TeamScaleBenchmarkIT {
    private static final String TOKEN = "bench-token";
    private static final Duration WINDOW = Duration.ofSeconds(Integer.getInteger("cohort.bench.seconds", 10));
    private static final List<Integer> TEAMS = ints(System.getProperty("cohort.bench.teams", "1,10,50"));
    private static final List<Integer> REPLICAS = ints(System.getProperty("cohort.bench.replicas", "1,2"));
    private static final String EXTRA_ENV = System.getProperty("cohort.bench.env", "");
    private static final boolean BASH_ONLY = Boolean.getBoolean("cohort.bench.bash-only");
    private final AtomicLong ids = new AtomicLong();
    private int run;

    @Test
    void measuresTeamsAtOnce() throws Exception {
        Path jar = Path.of(System.getProperty("cohort.bench.jar", "target/quarkus-app/quarkus-run.jar")).toAbsolutePath();
        assertThat(jar).as("package the module first (verify does)").exists();
        StringBuilder report = new StringBuilder("\n=== team scale benchmark (packaged runner, loopback HTTP, ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores; extra env: ")
                .append(EXTRA_ENV.isBlank() ? "none" : EXTRA_ENV).append(BASH_ONLY ? "; bash calls only" : "")
                .append(") ===\n")
                .append("| replicas | teams | calls/s | bash true p50 / p99 | read_file p50 / p99 | machine CPU per call"
                        + " | runner + sandboxes CPU per call |\n")
                .append("|---|---|---|---|---|---|---|\n");
        StringBuilder starts = new StringBuilder();
        try (Devstack stack = Devstack.start(0, Topics.ALL, 1, 0, -1)) {
            for (int replicas : REPLICAS) {
                for (int teams : TEAMS) {
                    measure(stack, jar, replicas, teams, report, starts);
                }
            }
        }
        report.append(starts);
        System.out.println(report);
    }

    private void measure(Devstack stack, Path jar, int replicas, int teams, StringBuilder report, StringBuilder starts)
            throws Exception {
        Path base = Files.createTempDirectory("cohort-team-bench");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path state = Files.createDirectories(base.resolve("state"));
        List<ServiceProcess> runners = new ArrayList<>();
        run++;
        try {
            for (int r = 0; r < replicas; r++) {
                Map<String, String> env = stack.serviceEnvironment();
                env.putAll(Map.of("COHORT_WORKSPACE_ROOT", workspace.toString(), "COHORT_STATE_DIR", state.toString(),
                        "COHORT_TOOL_RUNNER_TOKEN", TOKEN, "COHORT_INSTANCE_ID", "bench-" + run + "-" + r));
                for (String kv : EXTRA_ENV.split(",")) {
                    if (kv.contains("=")) {
                        env.put(kv.substring(0, kv.indexOf('=')).strip(), kv.substring(kv.indexOf('=') + 1).strip());
                    }
                }
                runners.add(ServiceProcess.start("tool-runner-" + r, jar, Ports.free(), env, workspace,
                        Duration.ofSeconds(120)));
            }
            List<ToolRunnerClient> clients = runners.stream()
                    .map(s -> new ToolRunnerClient(s.url(), TOKEN, Duration.ofSeconds(60))).toList();
            // warm the JVMs on a team of their own, then each team's first call: its sandbox starts
            for (ToolRunnerClient c : clients) {
                for (int i = 0; i < 200; i++) {
                    c.call("bash", req("warmup", Map.of("command", "true " + i)));
                }
            }
            long[] first = new long[teams];
            for (int t = 0; t < teams; t++) {
                String team = team(t);
                ToolRunnerClient c = clients.get(t % replicas);
                long t0 = System.nanoTime();
                assertThat(c.call("bash", req(team, Map.of("command", "printf '%4096s' x > four-k.txt"))).exitCode())
                        .isZero();
                first[t] = System.nanoTime() - t0;
            }
            Arrays.sort(first);
            starts.append(String.format("replicas %d, %d teams: a team's first call (its sandbox starts) p50 %.1f ms,"
                    + " p99 %.1f ms%n", replicas, teams, first[teams / 2] / 1e6, first[Math.min(teams - 1,
                    (int) (teams * 0.99))] / 1e6));
            if (replicas == 1 && teams == TEAMS.get(TEAMS.size() - 1)) {
                starts.append(sandboxMemory(runners.get(0).pid()));
            }

            List<Long> bash = Collections.synchronizedList(new ArrayList<>());
            List<Long> read = Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(teams);
            long end = System.nanoTime() + WINDOW.toNanos();
            long[] cpu0 = machineCpu();
            long tree0 = treeCpu(runners);
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < teams; t++) {
                String team = team(t);
                ToolRunnerClient c = clients.get(t % replicas);
                fs.add(pool.submit(() -> {
                    int i = 0;
                    while (System.nanoTime() < end) {
                        long s = System.nanoTime();
                        ToolCallResult r = c.call("bash", req(team, Map.of("command", "true " + i++)));
                        bash.add(System.nanoTime() - s);
                        assertThat(r.error()).as("%s", r).isNull();
                        if (BASH_ONLY) {
                            continue;
                        }
                        s = System.nanoTime();
                        r = c.call("read_file", req(team, Map.of("path", "four-k.txt")));
                        read.add(System.nanoTime() - s);
                        assertThat(r.error()).as("%s", r).isNull();
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long[] cpu1 = machineCpu();
            long tree1 = treeCpu(runners);
            pool.shutdown();
            long calls = bash.size() + read.size();
            long[] b = sorted(bash);
            long[] r = sorted(read);
            report.append(String.format("| %d | %d | %.0f | %.1f / %.1f ms | %.1f / %.1f ms | %.2f ms | %.2f ms |%n",
                    replicas, teams, calls / seconds, pct(b, 0.5), pct(b, 0.99), pct(r, 0.5), pct(r, 0.99),
                    (cpu1[0] - cpu0[0]) * 10.0 / calls, (tree1 - tree0) * 10.0 / calls));
        } finally {
            for (ServiceProcess s : runners) {
                s.close();
            }
        }
    }

    /**
     * The memory of one idle team sandbox: RSS and PSS summed over the processes of every team sandbox (the ones whose
     * command line names the holder: bubblewrap outside and in, the holder; and its pooled entries: {@code nsenter} and
     * the looping stub, whose command line holds its end mark), divided by the number of holders.
     */
    private static String sandboxMemory(long runner) {
        long rss = 0;
        long pss = 0;
        int holders = 0;
        for (ProcessHandle h : ProcessHandle.of(runner).orElseThrow().descendants().toList()) {
            String cmd = read("/proc/" + h.pid() + "/cmdline").replace('\0', ' ');
            if (!cmd.contains("cohort-team-sandbox") && !cmd.contains("cohort-end")) {
                continue;
            }
            if (cmd.startsWith("/bin/bash") && cmd.contains("cohort-team-sandbox")) {
                holders++;
            }
            for (String line : read("/proc/" + h.pid() + "/smaps_rollup").split("\n")) {
                if (line.startsWith("Rss:")) {
                    rss += Long.parseLong(line.replaceAll("\\D", ""));
                } else if (line.startsWith("Pss:")) {
                    pss += Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
        }
        return holders == 0 ? "idle team sandbox memory: no holder found\n"
                : String.format("idle team sandbox memory (%d sandboxes): RSS %.1f MB, PSS %.1f MB each%n", holders,
                        rss / 1024.0 / holders, pss / 1024.0 / holders);
    }

    private static String team(int t) {
        return "bench-team-" + t;
    }

    private ToolCallRequest req(String team, Map<String, Object> args) {
        return new ToolCallRequest(team, "lead", "bench_" + ids.incrementAndGet(), null, args);
    }

    /** Busy and total clock ticks of the machine. */
    /**
     * Clock ticks of CPU of the runners and everything they started: each runner's own and its reaped children's
     * ({@code utime stime cutime cstime} of {@code /proc/<pid>/stat}), plus the same of each live descendant (team
     * sandboxes, their entries and what those reaped). What the kernel does for no process (tearing down a sandbox's
     * namespaces) is not in it: the machine's figure holds that.
     */
    private static long treeCpu(List<ServiceProcess> runners) {
        long ticks = 0;
        for (ServiceProcess r : runners) {
            ticks += ownAndReaped(r.pid());
            for (ProcessHandle h : ProcessHandle.of(r.pid()).map(p -> p.descendants().toList()).orElse(List.of())) {
                ticks += ownAndReaped(h.pid());
            }
        }
        return ticks;
    }

    private static long ownAndReaped(long pid) {
        String stat = read("/proc/" + pid + "/stat");
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return 0; // gone
        }
        String[] f = stat.substring(close + 2).split(" ");
        // after the command: state is field 3, utime..cstime are fields 14-17 (indexes 11-14 here)
        return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
    }

    private static long[] machineCpu() {
        String[] f = read("/proc/stat").lines().findFirst().orElseThrow().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length; i++) {
            total += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }

    private static long[] sorted(List<Long> values) {
        synchronized (values) {
            return values.stream().mapToLong(Long::longValue).sorted().toArray();
        }
    }

    private static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))] / 1e6;
    }

    private static List<Integer> ints(String csv) {
        return Arrays.stream(csv.split(",")).map(String::strip).map(Integer::parseInt).toList();
    }

    private static String read(String file) {
        try (FileInputStream in = new FileInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
