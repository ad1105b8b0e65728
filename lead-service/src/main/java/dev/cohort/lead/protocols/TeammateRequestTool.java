package dev.cohort.lead.protocols;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * A request the lead sends a teammate, {@code {teammate, <text>?}}: the optional text is checked for length, and the
 * request is sent once per call ({@link ToolEffectRepository#once}) with an id derived from the call, so a resumed
 * turn repeats the same request instead of sending a second one. A refusal is model-visible.
 */
abstract class TeammateRequestTool extends SpecifiedTool {
    private final String textArgument;
    private final String what;
    private final ToolEffectRepository effects;

    /** {@code what} names the request in a refusal ("request a plan of"), followed by the teammate's name. */
    TeammateRequestTool(ToolSpecification spec, String textArgument, String what, ToolEffectRepository effects) {
        super(spec, false, LEAD_ONLY);
        this.textArgument = textArgument;
        this.what = what;
        this.effects = effects;
    }

    /** Sends the request with id {@code id}; what it returns is the model's answer. */
    abstract ToolResult send(String team, String id, String teammate, String text);

    @Override
    public final ToolResult execute(ToolCall call, ToolContext ctx) {
        String teammate = call.string("teammate") == null ? "" : call.string("teammate").strip();
        String text = ProtocolTools.blankToNull(call.string(textArgument));
        ToolResult bad = ProtocolTools.tooLong(textArgument, text);
        if (bad != null) {
            return bad;
        }
        EffectKey key = EffectKey.of(call, ctx);
        return effects.once(key, () -> ProtocolTools.run(what + " " + teammate,
                () -> send(ctx.team(), key.uuid().toString(), teammate, text)));
    }
}
