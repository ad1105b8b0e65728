package dev.cohort.teammate.tasks;

import dev.cohort.core.host.AgentKey;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.LeadRefusedException;
import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import dev.cohort.teammate.tasks.HeldTaskRepository.Held;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.function.Supplier;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The four board tools a teammate is offered, one class each (CONVENTIONS #5), over the lead's internal API. A
 * refusal of the lead (blocked, owned, not eligible, lease lost) is the model-visible result naming the rule
 * ({@code task:<code>}); an unreachable lead after the client's retries ends the turn.
 */
final class TeammateBoardTools {
    private TeammateBoardTools() {
    }

    /** Runs one board call; a refusal becomes the model-visible error, an unreachable lead ends the turn. */
    static ToolResult run(String what, Supplier<ToolResult> op) {
        try {
            return op.get();
        } catch (LeadRefusedException e) {
            return ToolResult.error("task:" + (e.code() == null ? "refused" : e.code()), e.getMessage());
        } catch (RuntimeException e) {
            throw new ToolInfrastructureException("cannot " + what + ": the lead's board is unreachable (" + e + ")", e);
        }
    }

    /** {@code task_3 [in_progress] subject (owner: bob; role: tester; blocked by: task_1)}. */
    static String line(LeadTasks.Task t) {
        StringBuilder b = new StringBuilder(t.id()).append(" [").append(t.status()).append("] ").append(t.subject());
        List<String> notes = new ArrayList<>();
        if (t.owner() != null) {
            notes.add("owner: " + t.owner());
        }
        if (t.role() != null) {
            notes.add("role: " + t.role());
        }
        if (t.assignee() != null) {
            notes.add("assignee: " + t.assignee());
        }
        if (t.blockers() != null && !t.blockers().isEmpty()) {
            notes.add("blocked by: " + String.join(", ", t.blockers()));
        } else if ("pending".equals(t.status())) {
            notes.add("ready to claim");
        }
        if (t.worktree() != null) {
            notes.add("worktree: " + t.worktree());
        }
        return notes.isEmpty() ? b.toString() : b.append(" (").append(String.join("; ", notes)).append(')').toString();
    }

    /** {@code list_tasks}. */
    static final class ListTasks extends SpecifiedTool {
        private static final ToolSpecification SPEC = ToolSchemas.spec("list_tasks",
                "List the team's tasks with status, owner, role/assignee and dependencies; pending unblocked tasks are"
                        + " ready to claim.", ToolSchemas.object().build());
        private final LeadInternalClient lead;

        ListTasks(LeadInternalClient lead) {
            super(SPEC, false);
            this.lead = lead;
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            return run("list tasks", () -> {
                List<LeadTasks.Task> all = lead.list(ctx.team());
                return ToolResult.ok(all.isEmpty() ? "No tasks."
                        : all.stream().map(TeammateBoardTools::line).collect(Collectors.joining("\n")));
            });
        }
    }

    /** {@code get_task}: one task, its description as quoted data with its creator. */
    static final class GetTask extends SpecifiedTool {
        private static final ToolSpecification SPEC = ToolSchemas.spec("get_task",
                "Show one task with its description.",
                ToolSchemas.object().addProperty("task_id", ToolSchemas.string("e.g. task_3")).required("task_id").build());
        private final LeadInternalClient lead;

        GetTask(LeadInternalClient lead) {
            super(SPEC, false);
            this.lead = lead;
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            return run("read a task", () -> {
                LeadTasks.Task t = lead.get(ctx.team(), call.string("task_id"));
                return ToolResult.ok(line(t) + "\n" + TeamMessages.element(t.id(),
                        t.createdBy() == null ? "lead" : t.createdBy(), "task",
                        t.description() == null ? "" : t.description(), TeamMessages.INJECT_CAP));
            });
        }
    }

    /** {@code claim_task}: as the host's teammate (name, role); the lease is renewed by the replica's heartbeat. */
    static final class ClaimTask extends SpecifiedTool {
        private static final ToolSpecification SPEC = ToolSchemas.spec("claim_task",
                "Claim a pending, unblocked task for yourself (you become its owner; your tool calls then run in its"
                        + " worktree if it has one). Call complete_task when it is done.",
                ToolSchemas.object().addProperty("task_id", ToolSchemas.string("e.g. task_3")).required("task_id").build());
        private final LeadInternalClient lead;
        private final TeammateTasks tasks;
        private final TeammateRepository teammates;

        ClaimTask(LeadInternalClient lead, TeammateTasks tasks, TeammateRepository teammates) {
            super(SPEC, true);
            this.lead = lead;
            this.tasks = tasks;
            this.teammates = teammates;
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            AgentKey key = new AgentKey(ctx.team(), ctx.agent());
            return run("claim a task", () -> {
                String id = call.string("task_id");
                Held now = tasks.held(key).orElse(null);
                if (now != null && !now.taskId().equals(id)) {
                    return ToolResult.error("task:one-at-a-time", "you already hold " + now.taskId()
                            + "; complete it first (complete_task), one task at a time");
                }
                String role = teammates.find(ctx.team(), ctx.agent()).map(TeammateRepository.TeammateRow::role).orElse(null);
                LeadTasks.Claim c = lead.claimAs(ctx.team(), id, ctx.agent(), role,
                        TeammateTasks.seconds(tasks.config().lease()));
                tasks.bind(key, c);
                String wt = c.task().worktree() == null ? ""
                        : " Your tool calls now run in worktree '" + c.task().worktree() + "' (wt:" + c.task().worktree() + ").";
                return new ToolResult("Claimed " + c.task().id() + ": " + c.task().subject() + "." + wt, false, null,
                        List.of(new ToolEffect.TaskClaimed(c.task().id(), c.task().worktree())));
            });
        }
    }

    /** {@code complete_task}: only the holder, proven by the lease token of its claim. */
    static final class CompleteTask extends SpecifiedTool {
        /** Sent when the teammate holds no lease for the task: the lead then refuses, naming who holds it. */
        static final String NO_LEASE = "no-lease";
        private static final ToolSpecification SPEC = ToolSchemas.spec("complete_task",
                "Mark a task you hold as completed, with a short result; tasks waiting on it become claimable.",
                ToolSchemas.object().addProperty("task_id", ToolSchemas.string("e.g. task_3; default: the task you hold"))
                        .addProperty("result", ToolSchemas.string("what was done, in one or two sentences"))
                        .build());
        private final LeadInternalClient lead;
        private final TeammateTasks tasks;

        CompleteTask(LeadInternalClient lead, TeammateTasks tasks) {
            super(SPEC, true);
            this.lead = lead;
            this.tasks = tasks;
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            AgentKey key = new AgentKey(ctx.team(), ctx.agent());
            return run("complete a task", () -> {
                String named = call.string("task_id", null);
                String id = named == null || named.isBlank() ? tasks.held(key).map(Held::taskId).orElse(null) : named.strip();
                if (id == null) {
                    return ToolResult.error("task:none-held", "you hold no task; name the task_id to complete");
                }
                Held h = tasks.held(key).filter(x -> x.taskId().equals(id)).orElse(null);
                String token = h == null ? NO_LEASE : h.leaseToken();
                try {
                    LeadTasks.Completion c = lead.complete(ctx.team(), id, ctx.agent(), token, call.string("result", null));
                    tasks.clear(key, id);
                    String unblocked = c.unblocked() == null || c.unblocked().isEmpty() ? ""
                            : " Unblocked: " + c.unblocked().stream().map(u -> u.id() + " (" + u.subject() + ")")
                                    .collect(Collectors.joining(", ")) + ".";
                    return ToolResult.ok("Completed " + c.task().id() + ": " + c.task().subject() + "." + unblocked);
                } catch (LeadRefusedException e) {
                    if (h != null && List.of("lease-expired", "lease-mismatch", "not-owner", "status").contains(e.code())) {
                        tasks.clear(key, id); // the claim is lost: stop working in its worktree
                    }
                    return ToolResult.error("task:" + (e.code() == null ? "refused" : e.code()),
                            "complete_task refused: " + e.getMessage() + " (your claim on " + id
                                    + " is not valid any more; do not keep working on it)");
                }
            });
        }
    }
}
