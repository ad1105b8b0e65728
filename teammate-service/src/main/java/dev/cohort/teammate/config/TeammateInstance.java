package dev.cohort.teammate.config;

import dev.cohort.teammate.config.TeammateConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This replica's id ({@code cohort.teammate.instance-id} = {@code COHORT_INSTANCE_ID}, else {@code <hostname>:<port>}):
 * the {@code replica} of {@code teammate_phase}/{@code teammate_spawned} and the owner recorded on adopted agents.
 */
@ApplicationScoped
public class TeammateInstance {

    @Inject
    TeammateConfig config;

    @ConfigProperty(name = "quarkus.http.port", defaultValue = "8081")
    int port;

    private volatile String id;

    public String id() {
        String v = id;
        if (v == null) {
            v = config.instanceId().filter(s -> !s.isBlank()).orElseGet(() -> hostname() + ":" + port);
            id = v;
        }
        return v;
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
