package dev.cohort.lead.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** lead-service settings ({@code cohort.lead.*}). */
@ConfigMapping(prefix = "cohort.lead")
public interface LeadConfig {
    /** Largest prompt text accepted, in characters; larger is 413 (a prompt is instructions, not a data upload). */
    @WithDefault("1000000")
    int maxPromptChars();

    /** How often an SSE stream re-reads the store when no wake-up arrived: the safety net under Kafka wake-ups. */
    @WithDefault("1s")
    Duration ssePollInterval();

    /** Rows fetched per store read when replaying events. */
    @WithDefault("500")
    int sseBatch();

    /** System prompt of the lead (the full prompt assembly comes with the engine). */
    @WithDefault("You are the lead agent of a Cohort team of coding agents. Answer concisely.")
    String systemPrompt();
}
