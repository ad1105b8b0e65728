package dev.cohort.core.tools.skills;

/**
 * A skill (s07): a markdown document loaded on demand by {@code load_skill}; only name, description and
 * when-to-use sit in the system prompt's catalogue.
 *
 * @param name        from the frontmatter, or the directory name
 * @param description one line for the catalogue
 * @param whenToUse   optional hint for the catalogue ({@code when_to_use})
 * @param body        the markdown without its frontmatter
 * @param source      {@code workspace} or {@code bundled}
 */
public record Skill(String name, String description, String whenToUse, String body, String source) {
}
