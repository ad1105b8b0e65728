package dev.cohort.lead.protocols;

import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import java.util.function.Supplier;

/** What the protocol tools share: a refusal is model-visible (its rule named), a broker failure ends the turn. */
final class ProtocolTools {
    /** Longest reason, content or feedback accepted: each is injected into another agent's conversation. */
    static final int MAX_TEXT = 16_000;

    private ProtocolTools() {
    }

    static ToolResult run(String what, Supplier<ToolResult> op) {
        try {
            return op.get();
        } catch (ProtocolService.Refusal r) {
            return ToolResult.error(r.rule(), r.getMessage());
        } catch (IllegalStateException e) {
            throw new ToolInfrastructureException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    /** A refusal of an argument longer than {@link #MAX_TEXT}, or null. */
    static ToolResult tooLong(String name, String value) {
        return value != null && value.length() > MAX_TEXT ? ToolResult.error("arguments", name + " has " + value.length()
                + " characters; the limit is " + MAX_TEXT) : null;
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
