package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code background_done}: the tool runner tells an agent that one of its background jobs ended (the
 * content holds the first output).
 *
 * @param jobId      the job id, {@code bg_<id>}
 * @param callId     the tool call that started it
 * @param status     {@code completed}, {@code failed}, {@code timed_out} or {@code cancelled}
 * @param exitCode   the process's exit code; omitted when it was killed or never started
 * @param durationMs how long it ran; omitted when unknown
 * @param outputRef  {@code cohort-output://<id>}: the whole output, readable with {@code read_file}
 * @param command    the command it ran
 * @param error      why it failed to run or was stopped; omitted when it simply exited
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BackgroundDone(String jobId, String callId, String status, Integer exitCode, Long durationMs,
        String outputRef, String command, String error) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.BACKGROUND_DONE;
    }
}
