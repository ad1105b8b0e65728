package dev.cohort.core.host;

import java.util.List;
import java.util.Objects;

/** What an agent with no turn in progress does next, as its {@link AgentProgram} decides. */
public sealed interface Next {

    /**
     * Runs a turn. {@code inputIds} are the inbox items the input is made of: marked injected with the turn's first
     * save, in the same transaction. {@code promptId} is the prompt the turn answers, if it answers one: every event of
     * the turn carries it.
     */
    record Turn(String text, String source, boolean unattended, List<String> inputIds, String promptId)
            implements Next {
        public Turn {
            Objects.requireNonNull(text, "text");
            inputIds = List.copyOf(inputIds);
        }
    }

    /** Nothing to do: park (no thread, no session) until an input wakes it, the wait is settled or the deadline passes. */
    record Sleep(Park park) implements Next {
        public Sleep {
            Objects.requireNonNull(park, "park");
        }
    }

    static Turn turn(String text, String source, boolean unattended, List<String> inputIds) {
        return new Turn(text, source, unattended, inputIds, null);
    }

    /** A turn that answers prompt {@code promptId}. */
    static Turn prompt(String text, String source, boolean unattended, String promptId) {
        return new Turn(text, source, unattended, List.of(), promptId);
    }

    /** Idle until an input arrives. */
    static Sleep idle() {
        return new Sleep(Park.IDLE);
    }

    static Sleep sleep(Park park) {
        return new Sleep(park);
    }
}
