package dev.cohort.teammate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** teammate-service settings ({@code cohort.teammate.*}). */
@ConfigMapping(prefix = "cohort.teammate")
public interface TeammateConfig {
    /** lead-service base URL: the task board and protocol requests live there. */
    @WithDefault("http://127.0.0.1:8080")
    String leadUrl();

    /** tool-runner-service base URL: every file and shell operation goes there. */
    @WithDefault("http://127.0.0.1:8083")
    String toolRunnerUrl();
}
