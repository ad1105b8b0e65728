package dev.cohort.toolrunner.calls;

import dev.cohort.toolrunner.ToolError;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A tool's arguments as the model gave them, with typed access; a missing, mistyped or unknown argument is a
 * model-visible {@link ToolError} (the tutorial silently dropped unknown ones and crashed on missing ones).
 */
public final class Args {
    private final Map<String, Object> values;

    public Args(Map<String, Object> values, Set<String> allowed) {
        this.values = values == null ? Map.of() : values;
        Set<String> unknown = new TreeSet<>(this.values.keySet());
        unknown.removeAll(allowed);
        if (!unknown.isEmpty()) {
            throw ToolError.badArgument("unknown argument(s) " + unknown + "; this tool accepts " + new TreeSet<>(allowed));
        }
    }

    public String string(String name) {
        Object v = values.get(name);
        if (v == null) {
            throw ToolError.badArgument("missing required argument '" + name + "'");
        }
        if (!(v instanceof String s)) {
            throw ToolError.badArgument("argument '" + name + "' must be a string");
        }
        return s;
    }

    public String optString(String name, String def) {
        return values.get(name) == null ? def : string(name);
    }

    public Integer optInt(String name) {
        Object v = values.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n.longValue()));
        }
        if (v instanceof String s && s.strip().matches("-?\\d{1,9}")) {
            return Integer.parseInt(s.strip());
        }
        throw ToolError.badArgument("argument '" + name + "' must be an integer");
    }

    public Long optLong(String name) {
        Object v = values.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return n.longValue();
        }
        if (v instanceof String s && s.strip().matches("-?\\d{1,18}")) {
            return Long.parseLong(s.strip());
        }
        throw ToolError.badArgument("argument '" + name + "' must be an integer");
    }

    public Boolean optBool(String name) {
        Object v = values.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(s);
        }
        throw ToolError.badArgument("argument '" + name + "' must be true or false");
    }

    public boolean has(String name) {
        return values.get(name) != null;
    }
}
