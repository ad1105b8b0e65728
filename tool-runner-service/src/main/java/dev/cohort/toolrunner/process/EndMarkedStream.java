package dev.cohort.toolrunner.process;

import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The output of one call from a stub that serves call after call: the bytes up to the end mark
 * {@code NUL US cohort-end:<token>:<status> LF}, then end of stream. A NUL not followed by this call's mark is
 * output like any other byte. What arrives after the mark in the same read is not output; {@link #trailing()} says
 * there was some (a process of the call still writing), so the stub must not serve another call.
 */
public final class EndMarkedStream extends InputStream {
    private final InputStream in;
    private final byte[] mark;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int len;
    /** Bytes of {@link #mark} matched so far (held back, not yet returned as output). */
    private int matched;
    /** Digits of the status after the mark; -1 until the mark matched. */
    private final StringBuilder status = new StringBuilder();
    private boolean inStatus;
    private volatile Integer ended;
    private volatile boolean trailing;
    /** Held-back bytes to return as output after a partial match failed. */
    private byte[] replay;
    private int replayPos;

    public EndMarkedStream(InputStream in, String token) {
        this.in = in;
        this.mark = ("\0\u001fcohort-end:" + token + ":").getBytes(StandardCharsets.US_ASCII);
    }

    /** The command's status from the mark; {@code null} when the stream ended without it. */
    public Integer status() {
        return ended;
    }

    /** Whether bytes followed the mark in the read that found it. */
    public boolean trailing() {
        return trailing;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int want) throws IOException {
        if (want == 0) {
            return 0;
        }
        int n = 0;
        while (n < want) {
            if (replay != null) {
                b[off + n++] = replay[replayPos++];
                if (replayPos == replay.length) {
                    replay = null;
                }
                continue;
            }
            if (ended != null) {
                break;
            }
            if (pos == len) {
                if (n > 0 && in.available() <= 0) {
                    break; // hand over what is there rather than block for more
                }
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    if (matched > 0 && !inStatus) {
                        replay = Arrays.copyOf(mark, matched); // a partial mark at the end is output
                        replayPos = 0;
                        matched = 0;
                        continue;
                    }
                    break;
                }
            }
            byte c = buf[pos++];
            if (inStatus) {
                if (c == '\n') {
                    ended = parse(status);
                    trailing = pos < len;
                } else if (c >= '0' && c <= '9' && status.length() < 10) {
                    status.append((char) c);
                } else {
                    throw new IOException("a malformed end mark after a call's output");
                }
                continue;
            }
            if (c == mark[matched]) {
                matched++;
                if (matched == mark.length) {
                    inStatus = true;
                }
                continue;
            }
            if (matched > 0) {
                // not this call's mark: what was held back is output, and this byte is looked at again
                replay = Arrays.copyOf(mark, matched);
                replayPos = 0;
                matched = 0;
                pos--;
                continue;
            }
            b[off + n++] = c;
        }
        return n == 0 && (ended != null || len == 0) ? -1 : n;
    }

    private static Integer parse(StringBuilder digits) throws IOException {
        if (digits.isEmpty()) {
            throw new IOException("an end mark without a status");
        }
        return Integer.valueOf(digits.toString());
    }
}
