package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The answer of tool-runner-service to a {@link ToolCallRequest}. A failure the model should see (bad arguments, a
 * path outside the workspace, a denied command, a timeout) is a normal result with {@code error} set; the host gives
 * {@link #forModel()} to the model.
 *
 * @param output     what the tool printed or returned (capped; head and tail kept with a marker when cut)
 * @param error      a model-visible error naming the rule that applied, or {@code null}
 * @param exitCode   the exit code of {@code bash}, or {@code null} for other tools and when killed on timeout
 * @param truncated  {@code true} when {@code output} was cut; the whole output is then readable via {@code outputRef}
 * @param outputRef  a reference ({@code cohort-output://<id>}) that {@code read_file} accepts, or {@code null}
 * @param durationMs wall time of the call inside the runner
 * @param stderr     {@code bash} called with the internal {@code stdin} argument (command hooks): what the command
 *                   wrote to stderr, apart from {@code output} (then stdout only); {@code null} otherwise, when both
 *                   streams are merged into {@code output} in arrival order
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallResult(String output, String error, Integer exitCode, Boolean truncated, String outputRef,
        long durationMs, String stderr) {

    @JsonCreator
    public ToolCallResult {
    }

    /** A result whose stderr, if any, is merged into {@code output}. */
    public ToolCallResult(String output, String error, Integer exitCode, Boolean truncated, String outputRef,
            long durationMs) {
        this(output, error, exitCode, truncated, outputRef, durationMs, null);
    }

    /** A successful result with only an output. */
    public static ToolCallResult ok(String output, long durationMs) {
        return new ToolCallResult(output, null, null, null, null, durationMs);
    }

    /** A model-visible failure. */
    public static ToolCallResult failure(String error, long durationMs) {
        return new ToolCallResult(null, error, null, null, null, durationMs);
    }

    /** {@code true} when the call failed in a way the model should see. */
    @JsonIgnore
    public boolean isError() {
        return error != null;
    }

    /** The text to give the model as the tool result: output and error together, with the exit code when non-zero. */
    public String forModel() {
        StringBuilder sb = new StringBuilder();
        if (output != null && !output.isEmpty()) {
            sb.append(output);
        }
        if (stderr != null && !stderr.isEmpty()) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("[stderr]\n").append(stderr);
        }
        if (exitCode != null && exitCode != 0) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("[exit code ").append(exitCode).append(']');
        }
        if (error != null) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("Error: ").append(error);
        }
        return sb.isEmpty() ? "(no output)" : sb.toString();
    }
}
