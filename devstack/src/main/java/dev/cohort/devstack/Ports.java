package dev.cohort.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports, so tests never clash with a running {@code cohort up} or with each other. */
public final class Ports {
    private Ports() {
    }

    /** A port that was free on 127.0.0.1 a moment ago (the small race is acceptable for local infrastructure). */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** The given port, or a free one when it is 0. */
    public static int orFree(int port) {
        return port > 0 ? port : free();
    }
}
