package dev.cohort.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports, so tests never clash with a running {@code cohort up} or with each other.
 *
 * <p>A port is handed out some time before a child process binds it. A port from the kernel's ephemeral range (what
 * {@code new ServerSocket(0)} returns) can be taken in that time by any outgoing connection on the machine, such as a
 * Kafka client's, so ports are drawn at random below that range, where the kernel never assigns one on its own. A port
 * is handed out at most once per JVM and only when it can be bound on both the loopback and the wildcard address.
 */
public final class Ports {
    static final int LOWEST = 15000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private Ports() {
    }

    /** A port that was free on 127.0.0.1 a moment ago and that the kernel does not hand to outgoing connections. */
    public static int free() {
        int highest = ephemeralLow() - 1;
        if (highest - LOWEST < 1000) {
            return kernelPort();
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = random.nextInt(LOWEST, highest + 1);
            synchronized (HANDED_OUT) {
                if (HANDED_OUT.contains(port) || !bindable(port)) {
                    continue;
                }
                HANDED_OUT.add(port);
                return port;
            }
        }
        return kernelPort();
    }

    /** The given port, or a free one when it is 0. */
    public static int orFree(int port) {
        return port > 0 ? port : free();
    }

    /** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
    static int ephemeralLow() {
        try {
            // read as a stream: /proc files report size 0, which Files.readString takes at its word
            String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    static boolean bindable(int port) {
        try (ServerSocket loopback = new ServerSocket();
                ServerSocket wildcard = new ServerSocket()) {
            loopback.setReuseAddress(false);
            loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            loopback.close();
            wildcard.setReuseAddress(false);
            wildcard.bind(new InetSocketAddress(port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int kernelPort() {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
