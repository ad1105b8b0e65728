package dev.cohort.core.engine.prompt;

import dev.cohort.core.tools.skills.Skill;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the system prompt from named sections (s10), a pure function: identity (per role, OS-neutral),
 * workspace, tool guidance, skills catalogue, memory index, team context. Empty sections are omitted. Per-call
 * content (relevant memories, reminders) is appended after this stable prefix by {@link PromptCache#forCall}.
 */
public final class SystemPrompt {
    private SystemPrompt() {
    }

    /** The sections in order, by name; empty ones left out. */
    public static Map<String, String> sections(PromptInputs in) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("identity", identity(in));
        put(s, "workspace", in.workspace().isEmpty() ? "" : "Workspace: " + in.workspace()
                + ". Paths are relative to it; files outside it are not reachable.");
        put(s, "tools", toolGuidance(in));
        put(s, "skills", skills(in.skills()));
        put(s, "memory", in.memoryIndex().isEmpty() ? "" : "Memories (load the relevant ones when needed):\n"
                + in.memoryIndex());
        put(s, "team", in.teamContext().isEmpty() ? "" : "Team context:\n" + in.teamContext());
        return s;
    }

    /** The whole stable prompt: the sections joined by blank lines. */
    public static String assemble(PromptInputs in) {
        return String.join("\n\n", sections(in).values());
    }

    private static void put(Map<String, String> s, String name, String text) {
        if (text != null && !text.isBlank()) {
            s.put(name, text);
        }
    }

    static String identity(PromptInputs in) {
        String who = switch (in.role()) {
            case LEAD -> "You are the lead agent of the team '" + in.team() + "' in Cohort, a team of coding agents. "
                    + "You take work from people and the clock, plan it, do it or delegate it to teammates, and "
                    + "report the outcome.";
            case TEAMMATE -> "You are '" + in.agent() + "', a teammate in the team '" + in.team() + "' in Cohort, a "
                    + "team of coding agents. You do the tasks you claim or are given and report results to the lead.";
            case SUBAGENT -> "You are a subagent of '" + in.agent() + "' in the team '" + in.team() + "'. Do the "
                    + "task you were given with the tools you have, then answer with a concise summary of what you "
                    + "found or did. Do not delegate.";
        };
        return who + "\nAct directly with tools rather than describing what you would do. Commands run in a POSIX "
                + "shell (bash) in a sandbox, non-interactively. Destructive operations may need a human's approval; "
                + "a denied call comes back as the tool result, so change your plan instead of retrying it.";
    }

    static String toolGuidance(PromptInputs in) {
        List<String> lines = new ArrayList<>();
        if (in.tools().contains("read_file")) {
            lines.add("- Prefer read_file, write_file, edit_file, glob and grep over shell equivalents for files.");
        }
        if (in.tools().contains("todo_write")) {
            lines.add("- Before multi-step work, plan it with todo_write; keep one item in_progress and update "
                    + "statuses as you go.");
        }
        if (in.tools().contains("spawn_subagent")) {
            lines.add("- For a self-contained subtask that needs much reading, use spawn_subagent; only its summary "
                    + "comes back.");
        }
        if (in.tools().contains("load_skill") && !in.skills().isEmpty()) {
            lines.add("- When a skill in the catalogue fits the task, load it with load_skill and follow it.");
        }
        if (in.tools().contains("compact")) {
            lines.add("- When the conversation gets long, you may use compact.");
        }
        if (in.tools().contains("schedule_cron")) {
            lines.add("- For recurring or later work, use schedule_cron / list_crons / cancel_cron.");
        }
        if (in.tools().contains("create_task")) {
            lines.add("- Track team work on the task board (create_task, list_tasks, claim_task, complete_task).");
        }
        return lines.isEmpty() ? "" : "Tool guidance:\n" + String.join("\n", lines);
    }

    static String skills(List<Skill> skills) {
        if (skills.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("Available skills (load with load_skill):");
        for (Skill s : skills) {
            sb.append("\n- ").append(s.name()).append(": ").append(s.description());
            if (s.whenToUse() != null && !s.whenToUse().isBlank()) {
                sb.append(" (use when: ").append(s.whenToUse()).append(')');
            }
        }
        return sb.toString();
    }
}
