package dev.cohort.devstack;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a service JVM's memory goes, as a container's memory limit sees it: the kernel's resident set
 * ({@code VmRSS}, and its peak {@code VmHWM}, from {@code /proc/<pid>/status}) beside what the JVM reports on its own
 * Prometheus endpoint (heap and non-heap committed, live threads, direct buffers). {@link #beyondHeapMb()} — resident
 * memory that is not the committed heap: metaspace, code cache, thread stacks, GC structures, malloc arenas, direct
 * buffers — is what a memory limit must leave besides {@code -Xmx}. The resident set counts only the heap pages
 * touched so far, so that difference understates it while the heap is not fully used; a JVM started with
 * {@code -XX:NativeMemoryTracking=summary} also reports, through {@code jcmd VM.native_memory}, everything it committed
 * besides the heap ({@link #nativeBeyondHeapMb()}), the upper bound a limit must leave.
 *
 * @param rssMb resident now
 * @param peakRssMb the highest resident set since the process started
 * @param heapCommittedMb heap committed now ({@code jvm_memory_committed_bytes{area="heap"}}, summed over pools)
 * @param nonHeapCommittedMb metaspace, compressed class space and code cache committed now
 * @param threads live threads ({@code jvm_threads_live_threads})
 * @param directMb direct buffers in use ({@code jvm_buffer_memory_used_bytes{id="direct"}})
 * @param nativeBeyondHeapMb native memory tracking's total committed minus its Java heap committed; -1 when the JVM
 *     does not track native memory
 */
public record ProcessMemory(long rssMb, long peakRssMb, long heapCommittedMb, long nonHeapCommittedMb, long threads, long directMb,
        long nativeBeyondHeapMb) {

    private static final double MB = 1024.0 * 1024.0;

    /** Resident memory besides the committed heap, MB. */
    public long beyondHeapMb() {
        return rssMb - heapCommittedMb;
    }

    /** One line for a benchmark's report. */
    public String describe() {
        return String.format("RSS %d MB (peak %d MB) = heap committed %d MB + %d MB beyond the heap (non-heap committed %d MB,"
                + " %d threads, direct buffers %d MB)%s", rssMb, peakRssMb, heapCommittedMb, beyondHeapMb(), nonHeapCommittedMb,
                threads, directMb, nativeBeyondHeapMb < 0 ? "" : "; committed besides the heap (native memory tracking) "
                        + nativeBeyondHeapMb + " MB");
    }

    /**
     * Reads process {@code pid}'s status and its metrics at {@code managementUrl} (e.g. {@code http://127.0.0.1:9080}).
     *
     * @throws IOException when the process is gone or its metrics do not answer
     */
    public static ProcessMemory of(long pid, String managementUrl) throws IOException, InterruptedException {
        long rss = -1;
        long hwm = -1;
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (l.startsWith("VmRSS:")) {
                rss = kb(l) / 1024;
            } else if (l.startsWith("VmHWM:")) {
                hwm = kb(l) / 1024;
            }
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(managementUrl + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(managementUrl + "/q/metrics answered " + r.statusCode());
        }
        List<String> lines = r.body().lines().toList();
        return new ProcessMemory(rss, hwm, mb(sum(lines, "jvm_memory_committed_bytes{", "area=\"heap\"")),
                mb(sum(lines, "jvm_memory_committed_bytes{", "area=\"nonheap\"")),
                Math.round(sum(lines, "jvm_threads_live_threads", "")),
                mb(sum(lines, "jvm_buffer_memory_used_bytes{", "id=\"direct\"")), nativeBeyondHeap(pid));
    }

    /** {@code jcmd <pid> VM.native_memory summary}: total committed minus the Java heap's, MB; -1 when not tracked. */
    static long nativeBeyondHeap(long pid) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return -1;
        }
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "VM.native_memory", "summary").redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return nativeBeyondHeap(out);
    }

    /** From a {@code VM.native_memory summary} report; -1 when it has no totals (tracking off). */
    static long nativeBeyondHeap(String report) {
        var total = Pattern.compile("Total: reserved=(\\d+)(KB)?, committed=(\\d+)(KB)?").matcher(report);
        var heap = Pattern.compile("Java Heap \\(reserved=(\\d+)(KB)?, committed=(\\d+)(KB)?").matcher(report);
        if (!total.find() || !heap.find()) {
            return -1;
        }
        long t = Long.parseLong(total.group(3)) * (total.group(4) == null ? 1 : 1024);
        long h = Long.parseLong(heap.group(3)) * (heap.group(4) == null ? 1 : 1024);
        return mb(t - h);
    }

    /** The sum of the samples of the series starting with {@code prefix} whose labels contain {@code label}. */
    static double sum(List<String> lines, String prefix, String label) {
        double total = 0;
        for (String line : lines) {
            if (line.startsWith(prefix) && line.contains(label) && !line.startsWith("#")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    private static long mb(double bytes) {
        return Math.round(bytes / MB);
    }

    private static long kb(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("\\D", ""));
    }
}
