package dev.cohort.lead.mcp;

import dev.cohort.core.protocol.Json;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Cohort as an MCP server: {@code POST /mcp}, streamable HTTP answered with JSON ({@link McpProtocol}: revisions
 * 2025-11-25, 2025-06-18, 2025-03-26 and 2026-07-28), behind the API's bearer token ({@code cohort.api.token}, as
 * {@code /api}). A request from a browser page ({@code Origin}) is refused (403) unless the page is on this machine
 * ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}) or its origin is listed in {@code cohort.mcp.allowed-origins}:
 * a site the user visits must not reach a local Cohort by DNS rebinding. There is no
 * server-to-client stream ({@code GET}) and no session to end ({@code DELETE}): both are 405.
 */
@Path("/mcp")
public class McpResource {

    @Inject
    CohortMcpTools tools;

    @ConfigProperty(name = "cohort.mcp.allowed-origins")
    Optional<List<String>> allowedOrigins;

    @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev")
    String version;

    private McpProtocol protocol;

    @PostConstruct
    void init() {
        protocol = new McpProtocol("cohort", version, "Cohort runs durable teams of coding agents. send_prompt hands"
                + " work to a team's lead and waits for its answer (get_prompt polls a long one); list_tasks,"
                + " list_agents and list_approvals show the team; answer_approval lets a waiting agent go on.", tools);
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response post(String body, @HeaderParam("Origin") String origin,
            @HeaderParam("MCP-Protocol-Version") String version, @HeaderParam("Mcp-Method") String method) {
        if (origin != null && !local(origin) && !allowedOrigins.orElse(List.of()).contains(origin)) {
            return Response.status(403).type(MediaType.APPLICATION_JSON)
                    .entity(Json.write(McpProtocol.error(null, McpProtocol.INVALID_REQUEST, "origin " + origin
                            + " is not allowed (cohort.mcp.allowed-origins)", null))).build();
        }
        McpProtocol.Reply reply = protocol.handle(body, version, method);
        if (reply.body() == null) {
            return Response.status(reply.status()).build();
        }
        return Response.status(reply.status()).type(MediaType.APPLICATION_JSON).entity(Json.write(reply.body())).build();
    }

    /** An origin on this machine: {@code http(s)://localhost}, {@code 127.0.0.1} or {@code [::1]}, any port. */
    static boolean local(String origin) {
        try {
            URI u = URI.create(origin);
            String host = u.getHost();
            return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && host != null
                    && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @GET
    public Response stream() {
        return Response.status(405).header("Allow", "POST").build();
    }

    @DELETE
    public Response end() {
        return Response.status(405).header("Allow", "POST").build();
    }
}
