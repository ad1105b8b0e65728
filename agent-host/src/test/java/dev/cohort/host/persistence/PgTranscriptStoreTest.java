package dev.cohort.host.persistence;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The schema is spliced into SQL: only a plain identifier is accepted (the store itself is exercised by the lead's tests). */
class PgTranscriptStoreTest {

    /** Never asked for a connection: the constructor refuses before. */
    private static final DataSource NONE = new DataSource() {
        @Override
        public Connection getConnection() {
            throw new AssertionError("no connection expected");
        }

        @Override
        public Connection getConnection(String u, String p) {
            throw new AssertionError("no connection expected");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            return null;
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    };

    @ParameterizedTest
    @ValueSource(strings = {"", "Lead", "lead.x", "lead; DROP TABLE x", "1lead", "lead-two"})
    void aSchemaThatIsNotAPlainLowerCaseIdentifierIsRefused(String schema) {
        assertThatThrownBy(() -> new PgTranscriptStore(NONE, schema)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transcript schema must be a lower-case SQL identifier").hasMessageContaining(schema);
    }

    @Test
    void aMissingSchemaIsRefused() {
        assertThatThrownBy(() -> new PgTranscriptStore(NONE, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("not null");
        new PgTranscriptStore(NONE, "teammate"); // and a plain one is accepted without touching the database
    }
}
