package dev.cohort.host.store;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.host.AgentKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Marks a service's inputs (inbox rows, prompts) as taken into an agent's state, inside the transaction of the save
 * that contains them, so an input is either in the saved conversation and marked, or neither.
 */
@FunctionalInterface
public interface InputLedger {
    InputLedger NONE = new InputLedger() {
        @Override
        public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) {
        }

        @Override
        public boolean writesNothing(AgentKey key, AgentState state, List<String> injectedIds) {
            return true;
        }
    };

    /**
     * A ledger whose {@code marks} write only for a save that takes inputs: it calls them only then, and tells the store
     * that every other save writes nothing here ({@link #writesNothing}).
     */
    static InputLedger forInputs(InputLedger marks) {
        return new InputLedger() {
            @Override
            public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) throws SQLException {
                if (!injectedIds.isEmpty()) {
                    marks.saved(c, key, state, injectedIds);
                }
            }

            @Override
            public boolean writesNothing(AgentKey key, AgentState state, List<String> injectedIds) {
                return injectedIds.isEmpty();
            }
        };
    }

    /**
     * Called with every save, in its transaction, after the state row was written.
     *
     * @param state       the state just written (its turn in progress, if any, says which turn the inputs joined)
     * @param injectedIds the ids of the inputs this state contains for the first time (often empty)
     */
    void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) throws SQLException;

    /**
     * {@code true} when {@link #saved} would write nothing for this save (it takes no input, nothing else to mark): a
     * save that is then one statement runs in auto-commit, without a transaction's {@code COMMIT} round trip, and
     * {@link #saved} is not called. Default {@code false}: a ledger that cannot tell gets the transaction.
     */
    default boolean writesNothing(AgentKey key, AgentState state, List<String> injectedIds) {
        return false;
    }
}
