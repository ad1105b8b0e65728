package dev.cohort.core.protocol;

/** Where a prompt came from; cron-fired prompts never wait for a human (ARCHITECTURE §3.4). */
public final class PromptSource {
    public static final String HTTP = "http";
    public static final String CLI = "cli";
    public static final String KAFKA = "kafka";
    public static final String CRON = "cron";
    /** Another agent's message over A2A ({@code POST /a2a/{team}}). */
    public static final String A2A = "a2a";

    private PromptSource() {
    }
}
