package dev.cohort.lead.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.store.ToolEffectRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.function.Supplier;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The board tools ({@code create_task}, {@code list_tasks}, {@code get_task}, {@code claim_task},
 * {@code complete_task}) over one {@link TaskService}, for the lead's registry, and the texts they show the model.
 * The actor is always the context's agent (there is no {@code owner} argument). A rule refusal is a model-visible
 * error named {@code task:<code>}; the database being unreachable ends the turn.
 *
 * <p>The board's changes ({@code create_task}, {@code claim_task}, {@code complete_task}) are idempotent on (agent,
 * call id): each records its result in {@code lead.tool_effects} in the transaction of the change ({@link #once}), so
 * a resumed turn that repeats the call gets the first result, with no second task, claim or completion event.
 */
@ApplicationScoped
public class TaskTools {

    /** Characters of a description shown under a task in the list. */
    static final int DESCRIPTION_PREVIEW = 120;

    @Inject
    TaskService service;

    @Inject
    ToolEffectRepository effects;

    /** The five board tools, in the order the seed registers them. */
    public List<Tool> all() {
        return List.of(new CreateTaskTool(service, effects), new ListTasksTool(service), new GetTaskTool(service),
                new ClaimTaskTool(service, effects), new CompleteTaskTool(service, effects));
    }

    /**
     * The tool runner's worktree tools as the board extends them: {@code create_worktree} binds its {@code task_id}
     * on this board, {@code remove_worktree} refuses while a bound task is in progress and unbinds the rest (the other
     * worktree tools are the runner's as they are).
     */
    public Map<String, UnaryOperator<Tool>> worktreeBindings() {
        return Map.of("create_worktree", t -> new BoundCreateWorktreeTool(t, service, effects),
                "remove_worktree", t -> new BoundRemoveWorktreeTool(t, service, effects));
    }

    /** Runs a board operation, mapping refusals to model-visible errors and infrastructure failures to turn ends. */
    static ToolResult run(String what, Supplier<ToolResult> op) {
        try {
            return op.get();
        } catch (TaskRefusal r) {
            return ToolResult.error(r.rule(), r.getMessage());
        } catch (IllegalStateException e) {
            throw new ToolInfrastructureException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs a board change at most once per (agent, call id): a repeat of a recorded call gets its first result (or the
     * reused-id error); otherwise {@code op} runs, given the key, and records its result through
     * {@link ToolEffectRepository#recorder} in the change's own transaction. Refusals and infrastructure failures map
     * as in {@link #run}.
     */
    static ToolResult once(ToolEffectRepository effects, EffectKey key, String what,
            Function<EffectKey, ToolResult> op) {
        return run(what, () -> effects.once(key, () -> run(what, () -> op.apply(key))));
    }

    /**
     * The lease of a claim made through a tool: none for the lead (durable, one per team, it never vanishes while
     * holding work); the configured default for anyone else.
     */
    static Double leaseMs(ToolContext ctx, TaskService service) {
        return ctx.role() == AgentRole.LEAD ? null : (double) service.config().defaultLease().toMillis();
    }

    /** {@code  (blockedBy: task_1, task_2)} or empty. */
    static String deps(TaskRow t) {
        return t.blockedBy().isEmpty() ? ""
                : " (blockedBy: " + t.blockedBy().stream().map(TaskIds::format).collect(Collectors.joining(", ")) + ")";
    }

    /** {@code task_1 (setup database schema), task_4 (write docs)}. */
    static String labels(List<TaskRow> tasks) {
        return tasks.stream().map(t -> TaskIds.format(t.id()) + " (" + t.subject() + ")").collect(Collectors.joining(", "));
    }

    /** One list line (the seed's {@code id: subject [status] [owner] (blockedBy: …)}) plus readiness and description. */
    static String line(TaskRow t) {
        StringBuilder sb = new StringBuilder("  ").append(TaskIds.format(t.id())).append(": ").append(t.subject())
                .append(" [").append(t.effectiveStatus()).append(']');
        if (t.effectiveOwner() != null) {
            sb.append(" [").append(t.effectiveOwner()).append(']');
        }
        if (t.worktree() != null) {
            sb.append(" [worktree ").append(t.worktree()).append(']');
        }
        if (t.role() != null) {
            sb.append(" [role ").append(t.role()).append(']');
        }
        if (t.assignee() != null) {
            sb.append(" [for ").append(t.assignee()).append(']');
        }
        sb.append(deps(t));
        if (TaskRow.PENDING.equals(t.effectiveStatus())) {
            sb.append(t.unmet().isEmpty() ? " — ready to claim"
                    : " — blocked by " + t.unmet().stream().map(TaskIds::format).collect(Collectors.joining(", ")));
        }
        if (!t.description().isEmpty()) {
            String d = t.description().replaceAll("\\s+", " ");
            sb.append("\n      ").append(d.length() <= DESCRIPTION_PREVIEW ? d : d.substring(0, DESCRIPTION_PREVIEW) + "…");
        }
        return sb.toString();
    }
}
