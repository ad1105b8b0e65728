package dev.cohort.core.tools.todo;

/**
 * One item of an agent's todo list.
 *
 * @param content what to do
 * @param status  {@code pending}, {@code in_progress} or {@code completed}
 */
public record TodoItem(String content, String status) {
    public static final String PENDING = "pending";
    public static final String IN_PROGRESS = "in_progress";
    public static final String COMPLETED = "completed";

    public boolean unfinished() {
        return !COMPLETED.equals(status);
    }
}
