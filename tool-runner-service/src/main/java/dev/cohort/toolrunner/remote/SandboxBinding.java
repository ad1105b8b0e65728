package dev.cohort.toolrunner.remote;

import dev.cohort.core.protocol.Ids;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Which team a sandbox agent ({@code role=sandbox}) serves, and the token its control half calls it with. A sandbox pod
 * is created from a template shared by every team (taken from a warm pool before any team is known), so neither is in
 * its environment: the first {@code PUT /internal/v1/sandbox/binding} sets both, and from then on the agent answers
 * only calls that carry that token and name that team. The binding lives in memory only (nothing a command could read
 * from disk); an agent that restarts is bound again by the control half's next call.
 *
 * <p>What the token is worth: it lets its bearer run this team's calls in this sandbox, which the team's own commands
 * already do. It is {@code HMAC(control key, team)} ({@link TeamTokens}), so holding it reveals nothing of the
 * control half's key or of another team's token.
 */
@ApplicationScoped
public class SandboxBinding {

    /** The bound team and token. */
    private record Bound(String team, byte[] token) {
    }

    private volatile Bound bound;

    /**
     * Binds this sandbox to {@code team} with {@code token} when it is not bound yet; {@code true} when it is bound to
     * exactly these now (a repeated bind is answered the same), {@code false} when it serves another team or token.
     */
    public synchronized boolean bind(String team, String token) {
        if (!Ids.isTeam(team) || token == null || token.isBlank()) {
            throw new IllegalArgumentException("a binding needs a team matching " + Ids.TEAM.pattern()
                    + " and a non-empty token");
        }
        Bound b = bound;
        if (b == null) {
            bound = new Bound(team, token.getBytes(StandardCharsets.UTF_8));
            Log.infof("this sandbox now serves team %s", team);
            return true;
        }
        return b.team().equals(team) && admits(token);
    }

    /** The team this sandbox serves, once bound. */
    public Optional<String> team() {
        Bound b = bound;
        return b == null ? Optional.empty() : Optional.of(b.team());
    }

    /** {@code true} when bound and {@code token} is the bound token (compared in constant time). */
    public boolean admits(String token) {
        Bound b = bound;
        return b != null && token != null
                && MessageDigest.isEqual(b.token(), token.getBytes(StandardCharsets.UTF_8));
    }
}
