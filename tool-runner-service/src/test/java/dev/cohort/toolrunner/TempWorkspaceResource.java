package dev.cohort.toolrunner;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A fresh workspace root and a separate state directory (outside it) for the module's one Quarkus boot. */
public class TempWorkspaceResource implements QuarkusTestResourceLifecycleManager {
    /** The bearer token the tests' runner requires. */
    public static final String TOKEN = "test-runner-token";
    /** The one team whose sandbox keeps the network (the team's policy allows it). */
    public static final String NETWORK_TEAM = "net-allowed";

    @Override
    public Map<String, String> start() {
        try {
            Path base = Files.createTempDirectory("cohort-tr-test");
            Path root = Files.createDirectories(base.resolve("workspace"));
            Path state = Files.createDirectories(base.resolve("state"));
            Map<String, String> props = new java.util.HashMap<>(Map.of(
                    "cohort.tool-runner.workspace-root", root.toString(),
                    "cohort.tool-runner.state-dir", state.toString(),
                    "cohort.tool-runner.token", TOKEN,
                    "cohort.tool-runner.instance-id", "test-instance",
                    "cohort.tool-runner.sandbox-network-teams", NETWORK_TEAM,
                    // a fork bomb in a test is held at this many processes (the default, 1024, is for real work)
                    "cohort.tool-runner.limits.processes", "256",
                    // an MCP server's call waits this long (McpHostTest's slow tool takes longer)
                    "cohort.mcp.call-timeout", "10s",
                    "cohort.mcp.start-timeout", "20s",
                    // the one variable of the runner's environment MCP servers may name (McpHostTest)
                    "cohort.mcp.variables", "PATH"));
            // the MCP peers from npm live under the user's home, which sandboxes hide: shown again, read-only
            Path peers = McpPeers.directory();
            if (Files.isDirectory(peers)) {
                props.put("cohort.tool-runner.sandbox-read-only-paths", peers.toString());
            }
            return props;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        // temp dirs are left for post-mortem inspection; they live in the OS temp directory
    }
}
