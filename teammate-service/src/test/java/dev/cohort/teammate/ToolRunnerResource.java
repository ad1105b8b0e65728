package dev.cohort.teammate;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.devstack.quarkus.DevstackTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * The real tool-runner-service as a child process (built earlier in the reactor: {@code package} tool-runner-service
 * first), on the shared devstack, with a temporary workspace: teammates' file and shell tools run where they would in
 * production. One per test JVM; exposes {@code cohort.test.workspace}.
 */
public class ToolRunnerResource implements QuarkusTestResourceLifecycleManager {

    private static ServiceProcess runner;
    private static Path workspace;

    @Override
    public synchronized Map<String, String> start() {
        if (runner == null) {
            Devstack stack = DevstackTestResource.stack(Arrays.asList(Topics.ALL_CSV.split(",")));
            try {
                workspace = Files.createTempDirectory("cohort-teammate-ws-");
                Path state = Files.createTempDirectory("cohort-teammate-runner-state-");
                Path jar = Path.of("..", "tool-runner-service", "target", "quarkus-app", "quarkus-run.jar").toAbsolutePath().normalize();
                Map<String, String> env = stack.serviceEnvironment();
                env.put("COHORT_WORKSPACE_ROOT", workspace.toString());
                env.put("COHORT_STATE_DIR", state.toString());
                env.put("COHORT_TOOL_RUNNER_TOKEN", "runner-secret");
                runner = ServiceProcess.start("tool-runner", jar, Ports.free(), env, workspace, Duration.ofSeconds(120));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Map.of("cohort.teammate.tool-runner-url", runner.url(), "cohort.teammate.tool-runner-token", "runner-secret",
                "cohort.test.workspace", workspace.toString());
    }

    @Override
    public void stop() {
        // one per JVM: stopped by its shutdown hook
    }
}
