package dev.cohort.lead.protocols;

import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.protocols.ProtocolRepository.ProtocolRow;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code request_shutdown{teammate, reason?}} (the lead only): a {@code shutdown_request} with a new request id
 * (derived from the call, so a resumed turn repeats the same request). Refused for an unknown or already shut-down
 * teammate, or one with a shutdown already pending. The answer comes back as a {@code shutdown_response} in the
 * lead's inbox; unanswered by its deadline the request expires and the teammate is stopped anyway.
 */
public final class RequestShutdownTool extends TeammateRequestTool {

    public static final String NAME = "request_shutdown";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Ask a teammate to shut down gracefully. An idle teammate answers at once, a working one at its next step; "
                    + "the tasks it holds go back to pending. If it does not answer by the deadline it is stopped anyway.",
            ToolSchemas.object().addProperty("teammate", ToolSchemas.string("the teammate's name, e.g. 'alice'"))
                    .addProperty("reason", ToolSchemas.string("why (optional): the teammate sees it"))
                    .required("teammate").build());

    private final ProtocolService service;

    public RequestShutdownTool(ProtocolService service, ToolEffectRepository effects) {
        super(SPEC, "reason", "request a shutdown of", effects);
        this.service = service;
    }

    @Override
    ToolResult send(String team, String id, String teammate, String reason) {
        ProtocolRow row = service.requestShutdown(team, id, teammate, reason);
        return ToolResult.ok("Sent a shutdown request to " + row.target() + " (req: " + row.id() + "). It answers "
                + "with a shutdown_response when idle or at its next step; if it has not answered by " + row.deadline()
                + " it is stopped anyway. Either way the tasks it holds go back to pending.");
    }
}
