package dev.cohort.lead.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The dashboard's one-time login codes: 32 random bytes from {@link SecureRandom}, base64url without padding (43
 * characters, safe in a URL fragment), and the SHA-256 (hex) under which the store keeps them. Pure functions.
 */
public final class LoginCodes {

    /** 256 bits: guessing one among the few unexpired codes is hopeless, and the code fits in a link. */
    static final int CODE_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private LoginCodes() {
    }

    /** A fresh code. */
    public static String newCode() {
        byte[] b = new byte[CODE_BYTES];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The stored form of {@code code}: SHA-256 of its UTF-8 bytes, lower-case hex. */
    public static String hash(String code) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(code.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
