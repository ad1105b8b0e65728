package dev.cohort.toolrunner.remote;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The token a team's sandbox is called with: {@code HMAC-SHA256(key, "cohort-team-sandbox:" + team)} in hex. Every
 * replica of the control half holds the same key (the tool runner token), so each computes the same token for a team
 * without asking another; a sandbox learns only its own team's token, from which neither the key nor another team's
 * token follows.
 */
public final class TeamTokens {
    private final SecretKeySpec key;

    public TeamTokens(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the control half needs a key to derive team sandbox tokens"
                    + " (cohort.tool-runner.token, COHORT_TOOL_RUNNER_TOKEN)");
        }
        this.key = new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    public String of(String team) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return HexFormat.of().formatHex(mac.doFinal(("cohort-team-sandbox:" + team)
                    .getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }
}
