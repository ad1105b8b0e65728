package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolResult;

/**
 * The result of a workspace tool (mirrors the tool runner's answer).
 *
 * @param output     what the tool printed or returned (capped by the executor)
 * @param error      a model-visible error naming the rule that applied, or {@code null}
 * @param exitCode   bash's exit code, {@code null} for other tools or when killed
 * @param truncated  the output was cut; the whole output is readable via {@code outputRef}
 * @param outputRef  a reference {@code read_file} accepts, or {@code null}
 * @param durationMs wall time inside the executor
 * @param stderr     bash with the internal {@code stdin} argument (command hooks): stderr apart from {@code output};
 *                   {@code null} when merged into {@code output}
 */
public record ToolOutcome(String output, String error, Integer exitCode, boolean truncated, String outputRef,
        long durationMs, String stderr) {

    /** An outcome whose stderr, if any, is merged into {@code output}. */
    public ToolOutcome(String output, String error, Integer exitCode, boolean truncated, String outputRef,
            long durationMs) {
        this(output, error, exitCode, truncated, outputRef, durationMs, null);
    }

    public static ToolOutcome ok(String output) {
        return new ToolOutcome(output, null, null, false, null, 0);
    }

    public static ToolOutcome failure(String error) {
        return new ToolOutcome(null, error, null, false, null, 0);
    }

    public boolean isError() {
        return error != null;
    }

    /** The tool message for the model: output, a non-zero exit code, the error, and where the full output is. */
    public ToolResult toResult() {
        StringBuilder sb = new StringBuilder();
        if (output != null && !output.isEmpty()) {
            sb.append(output);
        }
        if (stderr != null && !stderr.isEmpty()) {
            sb.append(sb.isEmpty() ? "" : "\n").append("[stderr]\n").append(stderr);
        }
        if (exitCode != null && exitCode != 0) {
            sb.append(sb.isEmpty() ? "" : "\n").append("[exit code ").append(exitCode).append(']');
        }
        if (truncated && outputRef != null) {
            sb.append(sb.isEmpty() ? "" : "\n").append("[output truncated; full output: read_file ").append(outputRef)
                    .append(']');
        }
        if (error != null) {
            sb.append(sb.isEmpty() ? "" : "\n").append("Error: ").append(error);
        }
        String text = sb.isEmpty() ? "(no output)" : sb.toString();
        return new ToolResult(text, error != null, error != null ? "tool-runner" : null);
    }
}
