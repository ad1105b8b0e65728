package dev.cohort.lead.a2a;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.skills.Skill;
import dev.cohort.core.tools.skills.SkillLibrary;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A team's A2A agent card: {@code GET /.well-known/agent-card.json?team=<team>} ({@code default} without
 * {@code team}), open, as a card must be for a client to learn how to call the agent; it holds no secret and no
 * workspace detail. Its interface is {@link A2aResource}'s JSON-RPC binding at {@code <base>/a2a/<team>}, where
 * {@code <base>} is {@code cohort.a2a.public-url} or else the URL this request came to. The skills are the team's
 * coding work and the skills bundled with Cohort. With {@code cohort.api.token} set it names the bearer scheme.
 */
@Path("/.well-known/agent-card.json")
public class A2aCardResource {

    @Inject
    TeamRepository teams;

    @ConfigProperty(name = "cohort.a2a.public-url")
    Optional<String> publicUrl;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev")
    String version;

    private volatile List<Skill> bundled;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response card(@QueryParam("team") @DefaultValue("default") String team, @Context UriInfo uri) {
        var row = teams.find(team).orElseThrow(() -> TeamsResource.notFound(team));
        String base = publicUrl.filter(u -> !u.isBlank()).map(u -> u.replaceAll("/+$", ""))
                .orElseGet(() -> uri.getBaseUri().toString().replaceAll("/+$", ""));
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("name", "Cohort team " + team);
        c.put("description", "A Cohort team of coding agents: its lead plans, keeps a task board and delegates to"
                + " teammates; every shell and file operation runs in the team's sandboxed workspace. Send it a task in"
                + " text; it answers with its lead's final message. A tool call that needs a person's approval puts the"
                + " task in TASK_STATE_INPUT_REQUIRED; answer \"approve\" or \"deny\" on the task.");
        ObjectNode iface = c.putArray("supportedInterfaces").addObject();
        iface.put("url", base + "/a2a/" + team);
        iface.put("protocolBinding", "JSONRPC");
        iface.put("protocolVersion", A2aResource.VERSION);
        c.put("version", version);
        ObjectNode caps = c.putObject("capabilities");
        caps.put("streaming", true);
        caps.put("pushNotifications", false);
        caps.put("extendedAgentCard", false);
        if (apiToken.filter(t -> !t.isBlank()).isPresent()) {
            c.putObject("securitySchemes").putObject("bearer").putObject("httpAuthSecurityScheme")
                    .put("scheme", "Bearer").put("description", "the Cohort API token (COHORT_API_TOKEN)");
            c.putArray("securityRequirements").addObject().putObject("schemes").putObject("bearer").putArray("list");
        }
        c.putArray("defaultInputModes").add("text/plain").add("application/json");
        c.putArray("defaultOutputModes").add("text/plain");
        ArrayNode skills = c.putArray("skills");
        ObjectNode work = skills.addObject();
        work.put("id", "coding");
        work.put("name", "Coding work");
        work.put("description", "Reads, changes, builds and tests the code in the team's workspace, planning on a task"
                + " board and delegating to teammates (permission mode " + row.permissionMode() + ").");
        work.putArray("tags").add("coding").add("software-engineering").add("permission-mode:" + row.permissionMode());
        work.putArray("examples").add("Fix the failing test in the payment module and explain the cause.");
        for (Skill s : bundled()) {
            ObjectNode k = skills.addObject();
            k.put("id", "skill:" + s.name());
            k.put("name", s.name());
            k.put("description", s.description() == null ? s.name() : s.description());
            k.putArray("tags").add("skill");
        }
        return Response.ok(Json.write(c), MediaType.APPLICATION_JSON).build();
    }

    private List<Skill> bundled() {
        List<Skill> b = bundled;
        if (b == null) {
            b = SkillLibrary.loadBundled(SkillLibrary.class.getClassLoader());
            bundled = b;
        }
        return b;
    }
}
