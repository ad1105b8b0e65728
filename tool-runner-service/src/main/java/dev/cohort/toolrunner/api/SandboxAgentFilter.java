package dev.cohort.toolrunner.api;

import dev.cohort.platform.web.Problem;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.remote.SandboxBinding;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.Priorities;

/**
 * In a sandbox agent ({@code role=sandbox}) every request but the binding itself needs the bound team's token
 * ({@link SandboxBinding}): an unbound sandbox runs nothing, and a bound one only for the control half that bound it.
 * In the other roles this filter does nothing (platform's bearer filter guards {@code /internal} there).
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class SandboxAgentFilter implements ContainerRequestFilter {
    /** The one path an unbound sandbox answers. */
    static final String BINDING = "internal/v1/sandbox/binding";

    /** Looked up per request: a filter is made at static init, before the runtime configuration exists. */
    @Inject
    Instance<ToolRunnerConfig> config;
    @Inject
    SandboxBinding binding;

    @Override
    public void filter(ContainerRequestContext request) {
        if (config.get().role() != ToolRunnerConfig.Role.SANDBOX) {
            return;
        }
        String path = request.getUriInfo().getPath();
        if (path.startsWith("/")) {
            path = path.substring(1);
        }
        if (path.equals(BINDING)) {
            return;
        }
        if (binding.team().isEmpty()) {
            request.abortWith(Problem.of(401, "this sandbox is not bound to a team yet; the control half binds it"
                    + " with PUT /" + BINDING).withInstance("/" + path).toResponse());
            return;
        }
        String auth = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7).strip() : null;
        if (!binding.admits(token)) {
            request.abortWith(Problem.of(401, "missing or wrong bearer token for this team's sandbox")
                    .withInstance("/" + path).toResponse());
        }
    }
}
