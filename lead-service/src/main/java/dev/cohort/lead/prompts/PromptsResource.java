package dev.cohort.lead.prompts;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code POST /api/v1/teams/{team}/prompts}: validates, then only produces to {@code cohort.prompts} (the replica
 * owning the team's partition runs the turn). 202 with the prompt id. With an {@code idempotencyKey} the id is
 * derived from it, so a retried POST yields the same id and the lead runs the prompt once. The answer's
 * {@code afterSeq} is the team's last event seq when the prompt was accepted: every event of its turn comes later, so
 * a client follows it with {@code events?since=afterSeq} instead of replaying the team's history.
 */
@Path("/api/v1/teams/{team}/prompts")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class PromptsResource {

    private static final Set<String> CLIENT_SOURCES = Set.of(PromptSource.HTTP, PromptSource.CLI);

    @Inject
    TeamRepository teams;

    @Inject
    PromptPublisher publisher;

    @Inject
    LeadConfig config;

    @Inject
    EventRepository events;

    /** Body: {@code {text, idempotencyKey?, source?}} ({@code source} may be {@code cli} for the command line). */
    public record PostPrompt(String text, String idempotencyKey, String source) {
    }

    @POST
    @Blocking
    public Response post(@PathParam("team") String team, PostPrompt body) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
        if (body == null || body.text() == null || body.text().isBlank()) {
            throw ApiException.badRequest("\"text\" is required and must not be blank");
        }
        if (body.text().length() > config.maxPromptChars()) {
            throw new ApiException(413, "Content Too Large",
                    "prompt text has " + body.text().length() + " characters; the limit is " + config.maxPromptChars());
        }
        String source = body.source() == null ? PromptSource.HTTP : body.source();
        if (!CLIENT_SOURCES.contains(source)) {
            throw ApiException.badRequest("\"source\" must be one of " + CLIENT_SOURCES);
        }
        String id = body.idempotencyKey() == null || body.idempotencyKey().isBlank() ? Ids.newId()
                : UUID.nameUUIDFromBytes((team + "\n" + body.idempotencyKey()).getBytes(StandardCharsets.UTF_8)).toString();
        PromptRecord prompt = new PromptRecord(id, team, body.text(), source, body.idempotencyKey(), null);
        // read before the prompt is published: its turn's events can only be sequenced after this
        long afterSeq = events.lastSeq(team);
        publisher.publish(prompt);
        Log.debugf("team=%s prompt=%s queued", team, id);
        return Response.accepted(Map.of("id", id, "afterSeq", afterSeq)).build();
    }
}
