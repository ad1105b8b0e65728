package dev.cohort.toolrunner.process;

import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Captures a process's output with bounded memory: up to {@code cap} characters are kept; beyond that only the head
 * (first half) and a ring buffer of the tail (second half) stay in memory while the whole output is streamed to a
 * file, whose reference the model can page through with {@code read_file}. Invalid UTF-8 becomes U+FFFD.
 */
public final class OutputCapture {
    private final int cap;
    private final int headCap;
    private final int tailCap;
    private final Path spillFile;
    private final boolean alwaysSpill;
    private final StringBuilder first;
    /** The tail ring, allocated at the first overflow (most outputs fit: no 50 KB array per call). */
    private char[] ring;
    private int ringPos;
    private boolean ringFull;
    private long total;
    private BufferedWriter spill;
    /** Characters stored at most ({@code -1}: no limit); past it the rest is dropped and {@link #onLimit} runs. */
    private long storeLimit = -1;
    private boolean limitReached;
    private Runnable onLimit;

    /**
     * @param cap         characters kept in the result
     * @param spillFile   where the whole output goes once it exceeds {@code cap} (or always, see below)
     * @param alwaysSpill write the file even for short outputs (background logs)
     */
    public OutputCapture(int cap, Path spillFile, boolean alwaysSpill) {
        this.cap = Math.max(cap, 64);
        this.headCap = this.cap / 2;
        this.tailCap = this.cap - headCap;
        this.spillFile = spillFile;
        this.alwaysSpill = alwaysSpill;
        this.first = new StringBuilder(Math.min(this.cap, 8192));
        if (alwaysSpill) {
            openSpill();
        }
    }

    /**
     * Stores at most {@code chars} characters of output (in the file and in memory; {@code <= 0}: no limit): what comes
     * after is read and dropped, the stored output ends with a note, and the action given to {@link #onLimit} runs
     * once (the runner kills the command's process group), so a never-ending output cannot fill the disk.
     */
    public synchronized OutputCapture storeAtMost(long chars) {
        this.storeLimit = chars > 0 ? chars : -1;
        return this;
    }

    /** What runs (on a thread of its own) when the stored output reaches its limit; at once if it already has. */
    public synchronized void onLimit(Runnable action) {
        this.onLimit = action;
        if (limitReached) {
            Thread.ofVirtual().name("output-limit").start(action);
        }
    }

    /** {@code true} when the output passed {@link #storeAtMost}'s limit (the rest was dropped). */
    public synchronized boolean limitReached() {
        return limitReached;
    }

    /** The limit of {@link #storeAtMost}, {@code -1} when none. */
    public synchronized long storeLimit() {
        return storeLimit;
    }

    /** Reads {@code in} to its end. */
    public void consume(InputStream in) throws IOException {
        Reader r = new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE));
        char[] buf = new char[8192];
        int k;
        while ((k = r.read(buf)) > 0) {
            accept(buf, 0, k);
        }
    }

    /** Adds characters. */
    public synchronized void accept(char[] buf, int off, int len) {
        if (limitReached) {
            return; // past the limit: dropped (the command is being killed; its pipe is drained to the end)
        }
        if (storeLimit > 0 && total + len > storeLimit) {
            int fits = (int) (storeLimit - total);
            if (fits > 0) {
                store(buf, off, fits);
            }
            limitReached = true;
            if (spill != null) {
                try {
                    spill.write(limitNote());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write the output file " + spillFile, e);
                }
            }
            Runnable action = onLimit;
            if (action != null) {
                Thread.ofVirtual().name("output-limit").start(action);
            }
            return;
        }
        store(buf, off, len);
    }

    private String limitNote() {
        return "\n\n[… output limit: the command wrote more than " + storeLimit + " characters; the runner kept the first "
                + storeLimit + ", dropped the rest and killed the command's process group (rule: output-limit) …]\n";
    }

    private void store(char[] buf, int off, int len) {
        try {
            if (spill != null) {
                spill.write(buf, off, len);
            }
            if (total + len <= cap) {
                first.append(buf, off, len);
            } else {
                if (total < cap) {
                    int fits = (int) (cap - total);
                    first.append(buf, off, fits);
                    // the head is complete: drop the slack the builder's doubling left, so the bound is exact
                    first.trimToSize();
                }
                if (spill == null) {
                    openSpill();
                    spill.write(first.toString());
                    int already = (int) Math.min(len, cap - total);
                    spill.write(buf, off + already, len - already);
                }
                if (!ringFull && ringPos == 0) {
                    // first overflow: seed the tail ring with the end of what was kept so far
                    String seed = first.length() > tailCap ? first.substring(first.length() - tailCap) : first.toString();
                    int already = (int) Math.max(0, Math.min(len, cap - total));
                    pushRing(seed.toCharArray(), 0, seed.length());
                    pushRing(buf, off + already, len - already);
                } else {
                    pushRing(buf, off, len);
                }
            }
            total += len;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the output file " + spillFile, e);
        }
    }

    private void pushRing(char[] buf, int off, int len) {
        if (ring == null) {
            ring = new char[tailCap];
        }
        if (len >= tailCap) {
            System.arraycopy(buf, off + len - tailCap, ring, 0, tailCap);
            ringPos = 0;
            ringFull = true;
            return;
        }
        int firstPart = Math.min(len, tailCap - ringPos);
        System.arraycopy(buf, off, ring, ringPos, firstPart);
        System.arraycopy(buf, off + firstPart, ring, 0, len - firstPart);
        int newPos = ringPos + len;
        if (newPos >= tailCap) {
            ringFull = true;
        }
        ringPos = newPos % tailCap;
    }

    private void openSpill() {
        try {
            Files.createDirectories(spillFile.getParent());
            spill = Files.newBufferedWriter(spillFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the output file " + spillFile, e);
        }
    }

    /** Flushes and closes the output file, if any. */
    public synchronized void close() {
        if (spill != null) {
            try {
                spill.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Characters this capture holds in memory (head buffer capacity + tail ring), whatever the output's length: at
     * most {@code 2 * cap + 2} while the output fits (the builder grows by doubling; the tail ring is allocated at the
     * first overflow) and exactly {@code cap +
     * (cap - cap / 2)} once it has overflowed. The spill file's writer adds its fixed 8 KB buffer.
     */
    public synchronized long retainedChars() {
        return (long) first.capacity() + (ring == null ? 0 : ring.length);
    }

    /** Characters seen so far. */
    public synchronized long total() {
        return total;
    }

    /** {@code true} when the output exceeded the cap. */
    public synchronized boolean truncated() {
        return total > cap;
    }

    /** {@code true} when a file holds the whole output. */
    public synchronized boolean spilled() {
        return spill != null;
    }

    /** The first {@code n} characters seen. */
    public synchronized String head(int n) {
        return first.substring(0, Math.min(n, first.length()));
    }

    /**
     * The capped output: everything when it fits, else head + a marker saying how much was cut + tail.
     *
     * @param ref how the marker refers to the whole output
     */
    public synchronized String text(String ref) {
        if (total <= cap) {
            return first.toString() + (limitReached ? limitNote() : "");
        }
        String tail = ringFull
                ? new String(ring, ringPos, tailCap - ringPos) + new String(ring, 0, ringPos)
                : new String(ring, 0, ringPos);
        long omitted = total - headCap - tail.length();
        return first.substring(0, headCap)
                + "\n\n[… output truncated: " + omitted + " of " + total + " characters omitted (kept the first "
                + headCap + " and the last " + tail.length() + "); the " + (limitReached ? "stored" : "whole")
                + " output: read_file path=\"" + ref + "\" …]\n\n" + tail + (limitReached ? limitNote() : "");
    }
}
