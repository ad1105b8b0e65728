package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * A background job of tool-runner-service as returned by {@code GET /internal/v1/background/{id}}.
 *
 * @param id         {@code bg_<id>}
 * @param status     {@code running}, {@code completed}, {@code failed}, {@code timed_out} or {@code cancelled}
 * @param exitCode   exit code once finished ({@code null} while running or when killed)
 * @param summary    the first characters of the output (whole output via {@code outputRef})
 * @param outputRef  {@code cohort-output://<id>}, readable with {@code read_file}, also while running
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BackgroundJob(String id, String team, String agent, String callId, String command, String status,
        Integer exitCode, Long durationMs, String summary, String outputRef, String error, Instant startedAt,
        Instant finishedAt) {
}
