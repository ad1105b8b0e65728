package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.RestAssured;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The runner as started with its defaults (no {@code sandbox} setting: {@code auto}), probed from inside real
 * {@code bash} calls over HTTP, the way a model's command arrives. {@code SandboxTest} checks each claim against an
 * unsandboxed run; here the runner itself is shown to apply them.
 */
@QuarkusTest
class SandboxedBashTest {

    private static boolean bwrapWorks() {
        try {
            return new ProcessBuilder("bwrap", "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "true")
                    .redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void theDefaultIsSandboxedAndReadinessShowsTheLevelInForce() {
        String chosen = System.getenv("COHORT_SANDBOX");
        Assumptions.assumeTrue(chosen == null || chosen.isBlank() || chosen.equals("auto"),
                "COHORT_SANDBOX=" + chosen + " chosen for this run: the default is not under test");
        JsonPath health = given().get(TestHTTPResourceManager.getManagementUri() + "/health/ready").then().statusCode(200).extract().jsonPath();
        Map<String, Object> data = health.getMap("checks.find { it.name == 'sandbox' }.data");
        assertThat(data).containsEntry("requested", "auto");
        assertThat(data.get("sandbox")).isIn("bubblewrap", "unshare");
        if (bwrapWorks()) { // CI installs bubblewrap (.ci/run): there it must be the level in force
            assertThat(data).containsEntry("sandbox", "bubblewrap");
        }
    }

    @Test
    void aCommandSeesNoOtherProcessNotEvenTheRunner() {
        long runner = ProcessHandle.current().pid(); // @QuarkusTest: the runner is this JVM
        Assumptions.assumeTrue(runner > 10, "pid too small to tell apart from the sandbox's own");
        ToolCallResult r = bash(newTeam(), "test -e /proc/" + runner + "/environ && echo RUNNER\"\"-VISIBLE;"
                + " for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done 2>/dev/null");
        assertThat(r.output()).doesNotContain("RUNNER-VISIBLE");
        // the command's own processes, and its team sandbox's: init, holder and the entries started ahead (stubs)
        List<String> seen = r.output().lines().filter(l -> !l.isBlank()).toList();
        assertThat(seen).as("%s", seen).hasSizeBetween(1, 12)
                .allMatch(l -> l.contains("cohort-team-sandbox") || l.startsWith("/bin/bash ") || l.startsWith("tr ")
                        || l.startsWith("bash "));
    }

    @Test
    void aCommandCannotReachAPortOnLoopbackUnlessItsTeamIsAllowedNetwork() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // bash's /dev/tcp through a variable: the command policy refuses a literal redirect to a device
            String connect = "t=/dev/tcp/127.0.0.1/%d; (exec 3<>$t) 2>/dev/null && echo CONNECTED || echo NO-CONNECTION";
            ToolCallResult r = bash(newTeam(), connect.formatted(server.getLocalPort()));
            assertThat(r.output()).as("%s", r).isEqualTo("NO-CONNECTION\n");
            assertThat(bash(newTeam(), connect.formatted(RestAssured.port)).output())
                    .as("nor the runner's own API").isEqualTo("NO-CONNECTION\n");
            assertThat(bash(TempWorkspaceResource.NETWORK_TEAM, connect.formatted(server.getLocalPort())).output())
                    .isEqualTo("CONNECTED\n");
        }
    }

    @Test
    void theUsersHomeAndTheStateAreHiddenAndWritesStayInTheWorkspaceHomeAndPrivateTmp() throws IOException {
        Path userHome = Path.of(System.getProperty("user.home")).toRealPath();
        try (Stream<Path> s = Files.list(userHome)) {
            Assumptions.assumeTrue(s.findAny().isPresent(), "the user's home is empty: nothing to show hidden");
        }
        Path secret = Calls.stateDir().resolve("sandbox-test-secret.txt");
        Files.writeString(secret, "runner state");
        // the tests' runner shows the MCP peers from npm again, read-only (sandbox-read-only-paths): when they are under
        // the user's home, the one entry on their way is seen there, and nothing else
        Path peers = dev.cohort.toolrunner.McpPeers.directory();
        int shown = Files.isDirectory(peers) && peers.toRealPath().startsWith(userHome) ? 1 : 0;
        String team = newTeam();
        String tmpName = "cohort-sandboxed-bash-" + System.nanoTime();
        ToolCallResult r = bash(team, "echo home entries $(ls -A " + userHome + " | wc -l);"
                + " cat " + secret + " 2>/dev/null || echo no-state;"
                + " echo w > in-workspace.txt && echo workspace-ok;"
                + " echo h > \"$HOME/in-home.txt\" && echo home-ok;"
                + " echo t > /tmp/" + tmpName + " && echo tmp-ok;"
                + " (echo x > /usr/" + tmpName + ") 2>/dev/null && echo SYSTEM-WRITABLE;"
                // the root lies in /tmp here: a write to it lands in the private /tmp, never on the host
                + " (echo x > " + Calls.root().resolve(tmpName) + ") 2>/dev/null; echo done");
        assertThat(r.output()).isEqualTo("home entries " + shown + "\nno-state\nworkspace-ok\nhome-ok\ntmp-ok\ndone\n");
        assertThat(Calls.workspace(team).resolve("in-workspace.txt")).hasContent("w");
        assertThat(Calls.stateDir().resolve("teams").resolve(team).resolve("home/in-home.txt")).hasContent("h");
        assertThat(Path.of("/tmp", tmpName)).doesNotExist();
        assertThat(Calls.root().resolve(tmpName)).as("another team's workspace is not written").doesNotExist();
    }
}
