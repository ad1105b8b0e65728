package dev.cohort.host.engine;

import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A service's workspace tools: the tool runner's catalogue, read once and kept. A service starts without waiting for
 * the runner: {@link #prefetch} reads the catalogue in the background, and the engine's first use of its tools
 * ({@link EngineAssembly.Builder#workspace}) waits for it, asking the runner again while it does not answer, for at
 * most {@code wait} ({@code cohort.engine.tool-runner-retry.catalogue-wait}); a use that found no catalogue fails with
 * the reason, and the next one asks again.
 */
public final class WorkspaceTools implements Supplier<WorkspaceCatalogue> {
    private static final Logger LOG = Logger.getLogger(WorkspaceTools.class);

    private final ToolRunnerWorkspace runner;
    private final Duration wait;
    private volatile WorkspaceCatalogue catalogue;

    public WorkspaceTools(ToolRunnerWorkspace runner, Duration wait) {
        this.runner = Objects.requireNonNull(runner, "runner");
        this.wait = Objects.requireNonNull(wait, "wait");
    }

    /**
     * The catalogue, read now if it was not yet.
     *
     * @throws IllegalStateException when the runner did not serve a usable catalogue within the wait
     */
    @Override
    public WorkspaceCatalogue get() {
        WorkspaceCatalogue c = catalogue;
        if (c == null) {
            synchronized (this) {
                c = catalogue;
                if (c == null) {
                    c = runner.catalogue(wait);
                    catalogue = c;
                }
            }
        }
        return c;
    }

    /** The tool runner connection the catalogue comes from (it also serves the teams' MCP servers). */
    public ToolRunnerWorkspace runner() {
        return runner;
    }

    /** The catalogue if it was read already; never waits. */
    public Optional<WorkspaceCatalogue> loaded() {
        return Optional.ofNullable(catalogue);
    }

    /** Whether {@code tool} is a read-only tool of the catalogue; {@code false} while it is not read yet. */
    public boolean changesNothing(String tool) {
        WorkspaceCatalogue c = catalogue;
        return c != null && c.changesNothing(tool);
    }

    /** Reads the catalogue in the background (a service's start does not wait for the tool runner). */
    public void prefetch() {
        Thread.ofVirtual().name("tool-catalogue").start(() -> {
            try {
                get();
            } catch (RuntimeException e) {
                LOG.warnf("the tool runner's catalogue is not read yet (the first turn asks again): %s", e.getMessage());
            }
        });
    }
}
