package dev.cohort.core.tools.skills;

import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Splits a SKILL.md into YAML frontmatter and body with a real YAML parser (BOM, {@code ---}
 * inside values, multi-line values). Pure.
 */
public final class Frontmatter {
    private Frontmatter() {
    }

    /** The parsed frontmatter (empty when none or invalid) and the body without it. */
    public record Parsed(Map<String, Object> meta, String body, String problem) {
        public String string(String key) {
            Object v = meta.get(key);
            return v == null ? null : v.toString().strip();
        }
    }

    public static Parsed parse(String text) {
        String t = text == null ? "" : text;
        if (t.startsWith("\uFEFF")) {
            t = t.substring(1);
        }
        t = t.replace("\r\n", "\n");
        if (!t.startsWith("---\n")) {
            return new Parsed(Map.of(), t.strip(), null);
        }
        int end = t.indexOf("\n---", 3);
        while (end >= 0 && !(end + 4 == t.length() || t.charAt(end + 4) == '\n')) {
            end = t.indexOf("\n---", end + 4);
        }
        if (end < 0) {
            return new Parsed(Map.of(), t.strip(), "frontmatter is not closed with ---");
        }
        String yaml = t.substring(4, end);
        String body = end + 4 >= t.length() ? "" : t.substring(end + 5);
        try {
            Object o = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
            if (o instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> meta = (Map<String, Object>) m;
                return new Parsed(meta, body.strip(), null);
            }
            return new Parsed(Map.of(), body.strip(), o == null ? null : "frontmatter is not a mapping");
        } catch (RuntimeException e) {
            return new Parsed(Map.of(), body.strip(), "invalid YAML frontmatter: " + e.getMessage());
        }
    }

    /** A skill from a SKILL.md's text; {@code dirName} names it when the frontmatter has no name. */
    public static Skill toSkill(String dirName, String text, String source) {
        return toSkill(dirName, text, source, null);
    }

    /** {@link #toSkill(String, String, String)} of the file at {@code path} (a workspace skill's file). */
    public static Skill toSkill(String dirName, String text, String source, String path) {
        Parsed p = parse(text);
        String name = p.string("name") == null || p.string("name").isEmpty() ? dirName : p.string("name");
        String desc = p.string("description");
        if (desc == null || desc.isEmpty()) {
            desc = p.body().lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst()
                    .map(l -> l.replaceFirst("^#+\\s*", "")).orElse("(no description)");
        }
        return new Skill(name, desc.replaceAll("\\s+", " "), p.string("when_to_use"), p.body(), source, path);
    }
}
