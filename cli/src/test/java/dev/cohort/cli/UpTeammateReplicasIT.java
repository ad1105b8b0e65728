package dev.cohort.cli;

import static dev.cohort.cli.UpCommandIT.awaitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Black box, one boot of {@code cohort up --teammate-replicas 2}: both teammate-service JVMs are listed with their
 * URL, PID and replica name, run with their own {@code COHORT_TEAMMATE_PORT} and {@code COHORT_INSTANCE_ID} and the
 * services' JVM flags, each in a session of its own ({@code setsid}, present on every Linux this runs on), and answer
 * {@code /q/health/live}; one SIGKILLed replica is reported by name with its exit code
 * and restarted on its port, while the other replica (the same process throughout) stays live; SIGTERM then leaves
 * nothing running.
 */
class UpTeammateReplicasIT {

    /** A service line of the start-up listing: {@code  teammate-service-2   http://127.0.0.1:41234  pid 5678  replica teammate-2}. */
    private static final Pattern LISTED = Pattern.compile("\\s+(\\S+)\\s+http://127\\.0\\.0\\.1:(\\d+)\\s+pid (\\d+)"
            + "\\s+management http://127\\.0\\.0\\.1:(\\d+)(?:\\s+replica (\\S+))?");

    /** Generous for a loaded 2-core machine: a service JVM's start there takes up to a minute. */
    private static final Duration RESTART = Duration.ofSeconds(180);

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private record Listed(String name, int port, long pid, int management, String replica) {
    }

    @Test
    void twoTeammateReplicasRunOnTheirOwnPortsAndAKilledOneIsReportedAndRestartedWhileTheOtherStaysUp() throws Exception {
        UpCommandIT.Up up = UpCommandIT.start(tmp, null, Map.of(), "--teammate-replicas", "2");
        try {
            Path runDir = awaitReady(up);
            Set<ProcessHandle> seen = new LinkedHashSet<>(up.process().descendants().toList());
            assertThat(up.out()).anyMatch(l -> l.matches("cohort up: all four services ready in [0-9.]+ s \\(2 teammate-service replicas\\)\\. "
                    + "Ctrl-C stops everything\\."));

            Listed first = listed(up, "teammate-service");
            Listed second = listed(up, "teammate-service-2");
            assertThat(first.port()).isEqualTo(up.ports()[3]);
            assertThat(second.port()).isNotIn(up.ports()[0], up.ports()[1], up.ports()[2], up.ports()[3], up.ports()[4], up.ports()[5],
                    up.ports()[6]);
            assertThat(List.of(first.replica(), second.replica())).containsExactly("teammate-1", "teammate-2");
            for (Listed t : List.of(first, second)) {
                ProcessHandle h = ProcessHandle.of(t.pid()).orElseThrow();
                assertThat(h.parent().map(ProcessHandle::pid)).contains(up.process().pid());
                assertThat(h.info().commandLine().orElse(""))
                        .contains("-Xmx384m -XX:+UseSerialGC ").doesNotContain("TieredStopAtLevel")
                        .contains("teammate-service/target/quarkus-app/quarkus-run.jar");
                assertThat(ServiceEnvironment.of(t.pid())).containsEntry("COHORT_TEAMMATE_PORT", "" + t.port())
                        .containsEntry("QUARKUS_HTTP_PORT", "" + t.port()).containsEntry("COHORT_INSTANCE_ID", t.replica())
                        .containsEntry("QUARKUS_MANAGEMENT_PORT", "" + t.management());
                assertThat(session(t.pid())).as("%s leads a session of its own", t.name()).isEqualTo(t.pid());
                assertThat(live(t.management())).as("%s is live", t.name()).isTrue();
            }
            // no other service runs twice
            assertThat(up.out().stream().map(LISTED::matcher).filter(Matcher::matches).map(m -> m.group(1)).toList())
                    .containsExactlyInAnyOrder("tool-runner-service", "lead-service", "teammate-service", "scheduler-service",
                            "teammate-service-2");

            // SIGKILL the second replica: reported by name and exit code, restarted on its own port
            ProcessHandle.of(second.pid()).orElseThrow().destroyForcibly();
            awaitLine(up, "cohort up: teammate-service-2 (pid " + second.pid() + ") exited unexpectedly: killed by SIGKILL (exit code 137); "
                    + "restarting it in 1 s (restart 1 of at most 5 within 10 min)", Duration.ofSeconds(60));
            Pattern back = Pattern.compile("cohort up: teammate-service-2 is back \\(pid (\\d+), ready [0-9.]+ s after its restart\\)");
            long restarted = Long.parseLong(await().atMost(RESTART).pollInterval(Duration.ofMillis(200))
                    .until(() -> up.out().stream().map(back::matcher).filter(Matcher::matches).map(m -> m.group(1)).findFirst(),
                            Optional::isPresent).orElseThrow());
            assertThat(restarted).isNotEqualTo(second.pid());
            seen.addAll(up.process().descendants().toList());
            assertThat(ServiceEnvironment.of(restarted)).containsEntry("COHORT_TEAMMATE_PORT", "" + second.port())
                    .containsEntry("COHORT_INSTANCE_ID", "teammate-2");
            assertThat(session(restarted)).as("the restarted replica leads a session of its own").isEqualTo(restarted);
            assertThat(live(second.management())).isTrue();

            // the other replica was never touched: the same process, live, and no line says it exited
            assertThat(ProcessHandle.of(first.pid()).map(ProcessHandle::isAlive)).contains(true);
            assertThat(live(first.management())).isTrue();
            assertThat(up.process().isAlive()).isTrue();
            assertThat(up.out()).noneMatch(l -> l.startsWith("cohort up: teammate-service (pid") || l.startsWith("cohort up: lead-service")
                    || l.startsWith("cohort up: scheduler-service") || l.startsWith("cohort up: tool-runner-service"));

            UpCommandIT.signal(up, "TERM");
            UpCommandIT.assertNothingLeft(tmp, up, new ArrayList<>(seen), runDir);
            assertThat(UpCommandIT.listening(second.port())).isFalse();
        } finally {
            UpCommandIT.kill(up);
        }
    }

    private static Listed listed(UpCommandIT.Up up, String name) {
        for (String line : up.out()) {
            Matcher m = LISTED.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                return new Listed(name, Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)), Integer.parseInt(m.group(4)), m.group(5));
            }
        }
        throw new AssertionError(name + " is not listed; output:\n" + String.join("\n", up.out()));
    }

    private static String awaitLine(UpCommandIT.Up up, String prefix, Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(200))
                .until(() -> up.out().stream().filter(l -> l.startsWith(prefix)).findFirst(), Optional::isPresent).orElseThrow();
    }

    /** A child's environment as the kernel shows it ({@code /proc/<pid>/environ}: the same user may read it). */
    /** The session id of {@code pid}: the fourth field after the command name of {@code /proc/<pid>/stat}. */
    private static long session(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", "" + pid, "stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]);
    }


    private boolean live(int managementPort) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/live"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"UP\"");
        } catch (IOException e) {
            return false;
        }
    }
}
