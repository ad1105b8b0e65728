package dev.cohort.devstack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void portsComeFromBelowTheEphemeralRangeAndAreNeverHandedOutTwice() {
        int low = Ports.ephemeralLow();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = Ports.free();
            assertTrue(port >= Ports.LOWEST && port < low, port + " is outside [" + Ports.LOWEST + ", " + low + ")");
            assertTrue(seen.add(port), port + " handed out twice");
        }
    }

    @Test
    void aHandedOutPortCanBeBound() throws IOException {
        int port = Ports.free();
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, s.getLocalPort());
        }
    }

    @Test
    void aPortInUseIsNotBindable() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(!Ports.bindable(s.getLocalPort()));
        }
    }

    @Test
    void anExplicitPortIsKept() {
        assertEquals(8080, Ports.orFree(8080));
    }
}
