package dev.cohort.core.tools.skills;

/**
 * A skill: a markdown document loaded on demand by {@code load_skill}; only name, description and
 * when-to-use sit in the system prompt's catalogue. A workspace skill is a file anyone who edits the repository can
 * write, agents included: the catalogue and {@code load_skill} show it quoted, with its file, as material of that
 * file's authority, never as the operator's instructions.
 *
 * @param name        from the frontmatter, or the directory name
 * @param description one line for the catalogue
 * @param whenToUse   optional hint for the catalogue ({@code when_to_use})
 * @param body        the markdown without its frontmatter
 * @param source      {@link #WORKSPACE} or {@link #BUNDLED}
 * @param path        the workspace file it was read from (e.g. {@code skills/review/SKILL.md}); {@code null} for a
 *                    bundled skill
 */
public record Skill(String name, String description, String whenToUse, String body, String source, String path) {

    /** The source of a skill read from the team's workspace. */
    public static final String WORKSPACE = "workspace";
    /** The source of a skill shipped with Cohort. */
    public static final String BUNDLED = "bundled";

    /** A skill without a file path (bundled, or built in code). */
    public Skill(String name, String description, String whenToUse, String body, String source) {
        this(name, description, whenToUse, body, source, null);
    }

    /** Whether the skill comes from the workspace (written by whoever edits the repository) rather than Cohort. */
    public boolean fromWorkspace() {
        return WORKSPACE.equals(source);
    }

    /** Where it comes from, as the model is told: {@code workspace file skills/x/SKILL.md} or {@code bundled with Cohort}. */
    public String origin() {
        if (fromWorkspace()) {
            return "workspace file " + (path == null ? "skills/" + name + "/SKILL.md" : path);
        }
        return "bundled with Cohort";
    }
}
