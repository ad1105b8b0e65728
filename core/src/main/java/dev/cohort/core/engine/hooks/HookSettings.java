package dev.cohort.core.engine.hooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Command hooks in Claude Code's settings format, as a team's {@code hooks} (API) and in the workspace's
 * {@code .cohort/settings.json} ({@code {"hooks": {…}}}; other keys of that file are ignored):
 *
 * <pre>{@code
 * {"PreToolUse":  [{"matcher": "bash|write_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}],
 *  "PostToolUse": [...], "UserPromptSubmit": [{"hooks": [...]}], "Stop": [{"hooks": [...]}]}
 * }</pre>
 *
 * <p>{@code matcher} (tool events only; ignored elsewhere) is a Java regex the whole tool name must match; absent,
 * empty or {@code *} = every tool. {@code type} must be {@code command} (the default when absent); {@code timeout} is
 * in seconds, 1 to {@value #MAX_TIMEOUT_SECONDS}, default {@value #DEFAULT_TIMEOUT_SECONDS}. Pure.
 */
public final class HookSettings {
    /** Claude Code's default. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;
    /** The tool runner's longest foreground command. */
    public static final int MAX_TIMEOUT_SECONDS = 600;
    /** Where a workspace keeps its settings (read through the tool runner). */
    public static final String WORKSPACE_FILE = ".cohort/settings.json";

    private HookSettings() {
    }

    /** Invalid settings; the message names the field, e.g. {@code hooks.PreToolUse[0].hooks[1].timeout}. */
    public static final class InvalidHookSettings extends IllegalArgumentException {
        private final String field;

        InvalidHookSettings(String field, String problem) {
            super(field + ": " + problem);
            this.field = field;
        }

        /** The path of the offending field. */
        public String field() {
            return field;
        }
    }

    /**
     * The command hooks of a {@code hooks} object.
     *
     * @param hooks  the value of {@code hooks} ({@code null} or JSON null = none)
     * @param origin how messages name where they were configured
     * @throws InvalidHookSettings naming the first bad field
     */
    public static List<CommandHook> parse(JsonNode hooks, String origin) {
        List<CommandHook> out = new ArrayList<>();
        if (hooks == null || hooks.isNull() || hooks.isMissingNode()) {
            return out;
        }
        if (!hooks.isObject()) {
            throw new InvalidHookSettings("hooks", "must be an object of event name → list of matcher groups");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = hooks.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> ev = it.next();
            String evPath = "hooks." + ev.getKey();
            CommandHook.Event event = CommandHook.Event.of(ev.getKey()).orElseThrow(() -> new InvalidHookSettings(evPath,
                    "unknown event \"" + ev.getKey() + "\"; one of " + Arrays.stream(CommandHook.Event.values())
                            .map(CommandHook.Event::wire).collect(Collectors.joining(", "))));
            if (!ev.getValue().isArray()) {
                throw new InvalidHookSettings(evPath, "must be a list of {\"matcher\"?, \"hooks\": [...]}");
            }
            for (int g = 0; g < ev.getValue().size(); g++) {
                JsonNode group = ev.getValue().get(g);
                String gPath = evPath + "[" + g + "]";
                if (!group.isObject()) {
                    throw new InvalidHookSettings(gPath, "must be an object {\"matcher\"?, \"hooks\": [...]}");
                }
                Pattern matcher = matcher(group.get("matcher"), gPath + ".matcher");
                JsonNode list = group.get("hooks");
                if (list == null || !list.isArray() || list.isEmpty()) {
                    throw new InvalidHookSettings(gPath + ".hooks", "required: a non-empty list of {\"type\": \"command\", "
                            + "\"command\": \"...\", \"timeout\"?}");
                }
                for (int h = 0; h < list.size(); h++) {
                    out.add(hook(event, event.isToolEvent() ? matcher : null, list.get(h), gPath + ".hooks[" + h + "]",
                            origin));
                }
            }
        }
        return out;
    }

    /**
     * The command hooks of a settings file's text ({@code {"hooks": {…}, …}}).
     *
     * @throws InvalidHookSettings when it is not JSON or its {@code hooks} is invalid
     */
    public static List<CommandHook> parseFile(String text, String origin) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new InvalidHookSettings("(file)", "not valid JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        if (root == null || root.isMissingNode()) {
            return List.of();
        }
        if (!root.isObject()) {
            throw new InvalidHookSettings("(file)", "must be a JSON object such as {\"hooks\": {...}}");
        }
        return parse(root.get("hooks"), origin);
    }

    private static Pattern matcher(JsonNode m, String path) {
        if (m == null || m.isNull()) {
            return null;
        }
        if (!m.isTextual()) {
            throw new InvalidHookSettings(path, "must be a string (a regex of tool names, e.g. \"bash|write_file\")");
        }
        String s = m.asText();
        if (s.isEmpty() || s.equals("*")) {
            return null;
        }
        try {
            return Pattern.compile(s);
        } catch (PatternSyntaxException e) {
            throw new InvalidHookSettings(path, "invalid regex \"" + s + "\": " + e.getDescription());
        }
    }

    private static CommandHook hook(CommandHook.Event event, Pattern matcher, JsonNode h, String path, String origin) {
        if (!h.isObject()) {
            throw new InvalidHookSettings(path, "must be an object {\"type\": \"command\", \"command\": \"...\", \"timeout\"?}");
        }
        JsonNode type = h.get("type");
        if (type != null && !type.isNull() && !"command".equals(type.asText())) {
            throw new InvalidHookSettings(path + ".type", "unsupported type \"" + type.asText() + "\"; only \"command\"");
        }
        JsonNode cmd = h.get("command");
        if (cmd == null || !cmd.isTextual() || cmd.asText().isBlank()) {
            throw new InvalidHookSettings(path + ".command", "required: the shell command to run");
        }
        int timeout = DEFAULT_TIMEOUT_SECONDS;
        JsonNode t = h.get("timeout");
        if (t != null && !t.isNull()) {
            if (!t.isIntegralNumber() || t.asLong() < 1 || t.asLong() > MAX_TIMEOUT_SECONDS) {
                throw new InvalidHookSettings(path + ".timeout", "must be a whole number of seconds from 1 to "
                        + MAX_TIMEOUT_SECONDS + " (was " + t + ")");
            }
            timeout = t.asInt();
        }
        return new CommandHook(event, matcher, cmd.asText(), timeout, origin);
    }
}
