package dev.cohort.core.memory;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

/**
 * A memory as a Markdown file with YAML frontmatter, written and read with SnakeYAML (the tutorial wrote
 * the values unescaped, so a newline or {@code ---} in a description corrupted the file). Its provenance is kept as
 * {@code written_by} and {@code written_at} (ISO-8601), absent when unknown.
 */
public final class MemoryFormat {
    private MemoryFormat() {
    }

    /** {@code ---\nname: …\ndescription: …\ntype: …\n[written_by: …\nwritten_at: …\n]---\n\n<body>\n}. */
    public static String render(Memory m) {
        DumperOptions o = new DumperOptions();
        o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        o.setWidth(Integer.MAX_VALUE);
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(o), o);
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("name", m.name());
        meta.put("description", m.description());
        meta.put("type", m.type().wire());
        if (m.writtenBy() != null) {
            meta.put("written_by", m.writtenBy());
        }
        if (m.writtenAt() != null) {
            meta.put("written_at", m.writtenAt().toString());
        }
        return "---\n" + yaml.dump(meta) + "---\n\n" + m.body() + "\n";
    }

    /** Parses a file; empty when it is not a valid memory (no frontmatter, unknown type, empty body). */
    public static Optional<Memory> parse(String text, String fallbackName) {
        String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
        t = t.replace("\r\n", "\n");
        if (!t.startsWith("---\n")) {
            return Optional.empty();
        }
        int end = t.indexOf("\n---\n", 3);
        if (end < 0) {
            return Optional.empty();
        }
        try {
            Object o = new Yaml(new SafeConstructor(new LoaderOptions())).load(t.substring(4, end));
            if (!(o instanceof Map<?, ?> meta)) {
                return Optional.empty();
            }
            Object name = meta.get("name");
            Optional<MemoryType> type = MemoryType.parse(String.valueOf(meta.get("type")));
            if (type.isEmpty()) {
                return Optional.empty();
            }
            Object by = meta.get("written_by");
            return Optional.of(new Memory(name == null ? fallbackName : String.valueOf(name), type.get(),
                    String.valueOf(meta.get("description")), t.substring(end + 5), by == null ? null : String.valueOf(by),
                    instant(meta.get("written_at"))));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** An ISO-8601 instant (SnakeYAML may already have read it as a date); {@code null} when absent or unreadable. */
    private static Instant instant(Object v) {
        if (v instanceof Date d) {
            return d.toInstant();
        }
        try {
            return v == null ? null : Instant.parse(String.valueOf(v));
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
