package dev.cohort.devstack.quarkus;

import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The real tool-runner-service as a child process (the packaged jar, built earlier in the reactor: {@code package}
 * tool-runner-service first), on the shared devstack ({@link DevstackTestResource}'s), with a temporary workspace: an
 * agent's file and shell tools run where they would in production. One per test JVM, stopped by its shutdown hook.
 *
 * <p>Init args: {@code prefix}, the service's config prefix of its tool-runner client ({@code cohort.lead},
 * {@code cohort.teammate}: it gets {@code <prefix>.tool-runner-url} and {@code <prefix>.tool-runner-token}), and
 * {@code topics} as for {@link DevstackTestResource}. Also exposes {@code cohort.test.workspace}, so tests can look at
 * the files.
 */
public class ToolRunnerTestResource implements QuarkusTestResourceLifecycleManager {

    private static final String TOKEN = "runner-secret";
    /** The one team whose sandbox keeps the network in the tests' runner. */
    public static final String NETWORK_TEAM = "mcp-net";

    /** Where {@code .ci/run} installs the MCP peers from npm ({@code COHORT_MCP_PEERS} names another directory). */
    public static Path mcpPeers() {
        String env = System.getenv("COHORT_MCP_PEERS");
        return env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "cohort", "mcp-peers");
    }

    private static ServiceProcess runner;
    private static Path workspace;

    private String prefix = "cohort.lead";
    private String topics = "";

    @Override
    public void init(Map<String, String> initArgs) {
        prefix = initArgs.getOrDefault("prefix", prefix);
        topics = initArgs.getOrDefault("topics", topics);
    }

    @Override
    public synchronized Map<String, String> start() {
        synchronized (ToolRunnerTestResource.class) {
            if (runner == null) {
                Devstack stack = DevstackTestResource.stack(topics.isBlank() ? List.of()
                        : Arrays.asList(topics.split(",")));
                try {
                    workspace = Files.createTempDirectory("cohort-test-ws-");
                    Path state = Files.createTempDirectory("cohort-test-runner-state-");
                    Path jar = Path.of("..", "tool-runner-service", "target", "quarkus-app", "quarkus-run.jar")
                            .toAbsolutePath().normalize();
                    Map<String, String> env = stack.serviceEnvironment();
                    env.put("COHORT_WORKSPACE_ROOT", workspace.toString());
                    env.put("COHORT_STATE_DIR", state.toString());
                    env.put("COHORT_TOOL_RUNNER_TOKEN", TOKEN);
                    // the MCP peers from npm live under the user's home, which sandboxes hide: shown again, read-only,
                    // so a team's MCP server can be one of them; the one team whose sandbox has the network reaches
                    // remote MCP servers (Cohort's own /mcp among them)
                    Path peers = mcpPeers();
                    if (Files.isDirectory(peers)) {
                        env.put("COHORT_TOOL_RUNNER_SANDBOX_READ_ONLY_PATHS", peers.toString());
                    }
                    env.put("COHORT_TOOL_RUNNER_SANDBOX_NETWORK_TEAMS", NETWORK_TEAM);
                    runner = ServiceProcess.start("tool-runner", jar, Ports.free(), env, workspace, Duration.ofSeconds(120));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return Map.of(prefix + ".tool-runner-url", runner.url(), prefix + ".tool-runner-token", TOKEN,
                    "cohort.test.workspace", workspace.toString());
        }
    }

    @Override
    public void stop() {
        // one per JVM: stopped by its shutdown hook
    }
}
