package dev.cohort.toolrunner.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A call's output ends at its own end mark, whatever the output holds and however the pipe cuts it. */
class EndMarkedStreamTest {
    private static final String TOKEN = "00112233445566778899aabbccddeeff";

    private static String mark(String token, int status) {
        return "\0\u001fcohort-end:" + token + ":" + status + "\n";
    }

    /** A stream that hands out at most {@code chunk} bytes per read, as a pipe may. */
    private static InputStream chunked(String s, int chunk) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        return new InputStream() {
            int pos;

            @Override
            public int read() {
                return pos < bytes.length ? bytes[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= bytes.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, chunk), bytes.length - pos);
                System.arraycopy(bytes, pos, b, off, n);
                pos += n;
                return n;
            }

            @Override
            public int available() {
                return 0;
            }
        };
    }

    private static String readAll(EndMarkedStream s) throws IOException {
        return new String(s.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void theOutputEndsAtItsMarkWithTheStatus() throws IOException {
        for (int chunk : new int[] {1, 2, 3, 7, 64, 8192}) {
            EndMarkedStream s = new EndMarkedStream(chunked("hello\nworld\n" + mark(TOKEN, 42), chunk), TOKEN);
            assertThat(readAll(s)).as("chunk %d", chunk).isEqualTo("hello\nworld\n");
            assertThat(s.status()).isEqualTo(42);
            assertThat(s.trailing()).isFalse();
        }
    }

    @Test
    void nulsAndAnotherTokensMarkAreOutput() throws IOException {
        String out = "a\0b\0\u001fcohort-end:deadbeef:0\n\0\u001fcohort-end:" + TOKEN.substring(0, 10) + "x\n";
        for (int chunk : new int[] {1, 5, 8192}) {
            EndMarkedStream s = new EndMarkedStream(chunked(out + mark(TOKEN, 0), chunk), TOKEN);
            assertThat(readAll(s)).as("chunk %d", chunk).isEqualTo(out);
            assertThat(s.status()).isZero();
        }
    }

    @Test
    void aStreamEndingWithoutItsMarkHasNoStatusAndKeepsAPartialMarkAsOutput() throws IOException {
        String partial = "x" + mark(TOKEN, 1).substring(0, 9);
        EndMarkedStream s = new EndMarkedStream(chunked(partial, 4), TOKEN);
        assertThat(readAll(s)).isEqualTo(partial);
        assertThat(s.status()).isNull();
    }

    @Test
    void bytesAfterTheMarkAreNotOutputButAreNoticed() throws IOException {
        EndMarkedStream s = new EndMarkedStream(new ByteArrayInputStream(
                ("out" + mark(TOKEN, 0) + "late").getBytes(StandardCharsets.ISO_8859_1)), TOKEN);
        assertThat(readAll(s)).isEqualTo("out");
        assertThat(s.trailing()).isTrue();
    }

    @Test
    void aMalformedStatusIsAnError() {
        EndMarkedStream s = new EndMarkedStream(new ByteArrayInputStream(
                ("out\0\u001fcohort-end:" + TOKEN + ":1x\n").getBytes(StandardCharsets.ISO_8859_1)), TOKEN);
        assertThatThrownBy(() -> readAll(s)).isInstanceOf(IOException.class).hasMessageContaining("malformed end mark");
    }
}
