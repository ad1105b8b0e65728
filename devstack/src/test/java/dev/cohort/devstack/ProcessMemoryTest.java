package dev.cohort.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link ProcessMemory} reads this JVM's /proc status and a Prometheus text like the services' management port serves. */
class ProcessMemoryTest {

    private static final String METRICS = """
            # HELP jvm_memory_committed_bytes The amount of memory in bytes that is committed for the Java virtual machine to use
            # TYPE jvm_memory_committed_bytes gauge
            jvm_memory_committed_bytes{area="heap",id="Tenured Gen"} 1.048576E8
            jvm_memory_committed_bytes{area="heap",id="Eden Space"} 4.194304E7
            jvm_memory_committed_bytes{area="nonheap",id="Metaspace"} 6.291456E7
            jvm_memory_committed_bytes{area="nonheap",id="CodeHeap 'non-nmethods'"} 2097152.0
            jvm_threads_live_threads 57.0
            jvm_buffer_memory_used_bytes{id="direct"} 3145728.0
            jvm_buffer_memory_used_bytes{id="mapped"} 9.9E9
            """;

    @Test
    void splitsTheResidentSetIntoHeapAndWhatIsBeyondIt() throws Exception {
        HttpServer server = serve(200, METRICS);
        try {
            ProcessMemory m = ProcessMemory.of(ProcessHandle.current().pid(), url(server));
            assertThat(m.heapCommittedMb()).isEqualTo(140);
            assertThat(m.nonHeapCommittedMb()).isEqualTo(62);
            assertThat(m.threads()).isEqualTo(57);
            assertThat(m.directMb()).isEqualTo(3);
            assertThat(m.rssMb()).isPositive();
            assertThat(m.peakRssMb()).isGreaterThanOrEqualTo(m.rssMb());
            assertThat(m.beyondHeapMb()).isEqualTo(m.rssMb() - 140);
            assertThat(m.describe()).contains("heap committed 140 MB", "57 threads", "direct buffers 3 MB");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void nativeMemoryTrackingGivesWhatIsCommittedBesidesTheHeap() {
        String report = """
                Native Memory Tracking:

                Total: reserved=1766518KB, committed=302134KB
                -                 Java Heap (reserved=262144KB, committed=131072KB)
                                            (mmap: reserved=262144KB, committed=131072KB)
                -                     Class (reserved=1048935KB, committed=11943KB)
                """;
        assertThat(ProcessMemory.nativeBeyondHeap(report)).isEqualTo(167);
        assertThat(ProcessMemory.nativeBeyondHeap("Native memory tracking is not enabled")).isEqualTo(-1);
    }

    @Test
    void metricsThatDoNotAnswerAreAnErrorNotZeros() throws Exception {
        HttpServer server = serve(404, "not here");
        try {
            assertThatThrownBy(() -> ProcessMemory.of(ProcessHandle.current().pid(), url(server)))
                    .isInstanceOf(IOException.class).hasMessageContaining("answered 404");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aProcessThatIsGoneIsAnError() {
        assertThatThrownBy(() -> ProcessMemory.of(Long.MAX_VALUE, "http://127.0.0.1:1")).isInstanceOf(IOException.class);
    }

    private static HttpServer serve(int status, String body) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/q/metrics", ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        s.start();
        return s;
    }

    private static String url(HttpServer s) {
        return "http://127.0.0.1:" + s.getAddress().getPort();
    }
}
