package dev.cohort.toolrunner.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Output capping: head and tail kept with a marker, whole output spilled to a file, short output untouched. */
class OutputCaptureTest {
    @TempDir
    Path dir;

    @Test
    void shortOutputIsKeptWholeAndNoFileIsWritten() throws Exception {
        OutputCapture c = new OutputCapture(100, dir.resolve("o.txt"), false);
        c.consume(new ByteArrayInputStream("hello\nworld\n".getBytes(StandardCharsets.UTF_8)));
        c.close();
        assertThat(c.text("ref")).isEqualTo("hello\nworld\n");
        assertThat(c.truncated()).isFalse();
        assertThat(Files.exists(dir.resolve("o.txt"))).isFalse();
    }

    @Test
    void longOutputKeepsHeadAndTailWithAMarkerAndSpillsEverything() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            sb.append("line ").append(i).append('\n');
        }
        String all = sb.toString();
        OutputCapture c = new OutputCapture(1000, dir.resolve("o.txt"), false);
        c.consume(new ByteArrayInputStream(all.getBytes(StandardCharsets.UTF_8)));
        c.close();
        String text = c.text("cohort-output://x");
        assertThat(c.truncated()).isTrue();
        assertThat(text).startsWith(all.substring(0, 500)).endsWith(all.substring(all.length() - 500));
        assertThat(text).contains("[… output truncated: " + (all.length() - 1000) + " of " + all.length()
                + " characters omitted").contains("cohort-output://x");
        assertThat(Files.readString(dir.resolve("o.txt"))).isEqualTo(all);
    }

    @Test
    void outputExactlyAtTheCapIsNotTruncated() throws Exception {
        String s = "x".repeat(1000);
        OutputCapture c = new OutputCapture(1000, dir.resolve("o.txt"), false);
        c.consume(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)));
        c.close();
        assertThat(c.text("r")).isEqualTo(s);
        assertThat(c.truncated()).isFalse();
    }

    @Test
    void chunksThatStraddleTheCapAreSplitCorrectly() {
        OutputCapture c = new OutputCapture(100, dir.resolve("o.txt"), true);
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            String chunk = String.format("%02d-abcdefg|", i);
            all.append(chunk);
            c.accept(chunk.toCharArray(), 0, chunk.length());
        }
        c.close();
        String text = c.text("r");
        assertThat(text).startsWith(all.substring(0, 50)).endsWith(all.substring(all.length() - 50));
        assertThat(c.total()).isEqualTo(all.length());
    }

    @Test
    void fiftyMegabytesThroughTheCaptureRetainTheSameFixedNumberOfCharactersAsTheFirstOverflow() throws Exception {
        int cap = 50_000;
        OutputCapture c = new OutputCapture(cap, dir.resolve("big.txt"), false);
        char[] chunk = "y\n".repeat(4096).toCharArray();
        c.accept(chunk, 0, chunk.length);
        c.accept(chunk, 0, chunk.length); // 16 KB: still inside the cap
        assertThat(c.truncated()).isFalse();
        long total = 2L * chunk.length;
        while (total <= cap) {
            c.accept(chunk, 0, chunk.length);
            total += chunk.length;
        }
        long atFirstOverflow = c.retainedChars();
        assertThat(atFirstOverflow).isEqualTo(cap + (cap - cap / 2));
        while (total < 50_000_000L) {
            c.accept(chunk, 0, chunk.length);
            total += chunk.length;
        }
        c.close();
        assertThat(c.total()).isEqualTo(total);
        assertThat(c.retainedChars()).isEqualTo(atFirstOverflow);
        assertThat(c.text("r").length()).isLessThan(cap + 400);
        assertThat(Files.size(dir.resolve("big.txt"))).isEqualTo(total);
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() throws Exception {
        OutputCapture c = new OutputCapture(100, dir.resolve("o.txt"), false);
        c.consume(new ByteArrayInputStream(new byte[] {'a', (byte) 0xff, 'b'}));
        c.close();
        assertThat(c.text("r")).isEqualTo("a\uFFFDb");
    }

    @Test
    void pastItsStoreLimitTheRestIsDroppedTheStoredOutputEndsWithANoteAndTheLimitActionRunsOnce() throws Exception {
        Path file = dir.resolve("limited.txt");
        OutputCapture c = new OutputCapture(100, file, false).storeAtMost(1_000);
        AtomicInteger actions = new AtomicInteger();
        CountDownLatch acted = new CountDownLatch(1);
        c.onLimit(() -> {
            actions.incrementAndGet();
            acted.countDown();
        });
        char[] chunk = "0123456789".repeat(30).toCharArray(); // 300 characters
        for (int i = 0; i < 10; i++) {
            c.accept(chunk, 0, chunk.length);
        }
        c.close();
        assertThat(acted.await(1, TimeUnit.MINUTES)).isTrue();
        assertThat(actions.get()).isEqualTo(1);
        assertThat(c.limitReached()).isTrue();
        assertThat(c.total()).isEqualTo(1_000);
        String stored = Files.readString(file);
        assertThat(stored).startsWith("0123456789".repeat(100)).hasSizeLessThan(1_300);
        assertThat(stored.substring(1_000)).startsWith("\n\n[… output limit: the command wrote more than 1000 characters")
                .endsWith("(rule: output-limit) …]\n");
        assertThat(c.text("ref")).contains("the stored output: read_file path=\"ref\"")
                .endsWith("(rule: output-limit) …]\n");
    }

    @Test
    void withoutAStoreLimitEverythingIsStored() throws Exception {
        Path file = dir.resolve("whole.txt");
        OutputCapture c = new OutputCapture(100, file, false);
        char[] chunk = "0123456789".repeat(30).toCharArray();
        for (int i = 0; i < 10; i++) {
            c.accept(chunk, 0, chunk.length);
        }
        c.close();
        assertThat(c.limitReached()).isFalse();
        assertThat(Files.readString(file)).isEqualTo("0123456789".repeat(300));
    }
}
