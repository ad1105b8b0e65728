package dev.cohort.core.tools.todo;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One agent's todo list: replaced as a whole by {@code todo_write}, validated all-or-nothing, at most one item
 * {@code in_progress}. Not thread-safe: one agent runs one turn at a time.
 */
public final class TodoList {
    private static final Set<String> STATUSES = Set.of(TodoItem.PENDING, TodoItem.IN_PROGRESS, TodoItem.COMPLETED);

    private List<TodoItem> items;

    public TodoList(List<TodoItem> items) {
        this.items = items == null ? List.of() : List.copyOf(items);
    }

    public List<TodoItem> items() {
        return items;
    }

    /** {@code true} while some item is not completed: the reminder only fires then. */
    public boolean hasUnfinished() {
        return items.stream().anyMatch(TodoItem::unfinished);
    }

    /**
     * Checks a whole new list; returns the problems (empty when valid). Pure, so the rule is unit-tested directly.
     */
    public static List<String> problems(List<TodoItem> candidate) {
        List<String> problems = new ArrayList<>();
        int inProgress = 0;
        for (int i = 0; i < candidate.size(); i++) {
            TodoItem t = candidate.get(i);
            if (t == null) {
                problems.add("todos[" + i + "] is not an object");
                continue;
            }
            if (t.content() == null || t.content().isBlank()) {
                problems.add("todos[" + i + "] has no content");
            }
            if (t.status() == null || !STATUSES.contains(t.status())) {
                problems.add("todos[" + i + "] has invalid status '" + t.status()
                        + "' (use pending, in_progress or completed)");
            } else if (TodoItem.IN_PROGRESS.equals(t.status())) {
                inProgress++;
            }
        }
        if (inProgress > 1) {
            problems.add("only one todo may be in_progress at a time, found " + inProgress);
        }
        return problems;
    }

    /** Replaces the list when it is valid; otherwise leaves it unchanged and throws with every problem. */
    public void replace(List<TodoItem> candidate) {
        List<String> problems = problems(candidate);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        this.items = List.copyOf(candidate);
    }

    /** The list as the model and the console see it. */
    public String render() {
        if (items.isEmpty()) {
            return "(no todos)";
        }
        StringBuilder sb = new StringBuilder();
        for (TodoItem t : items) {
            String box = switch (t.status()) {
                case TodoItem.COMPLETED -> "[x]";
                case TodoItem.IN_PROGRESS -> "[>]";
                default -> "[ ]";
            };
            sb.append(box).append(' ').append(t.content()).append('\n');
        }
        return sb.toString().stripTrailing();
    }
}
