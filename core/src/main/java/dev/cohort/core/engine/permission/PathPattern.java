package dev.cohort.core.engine.permission;

import java.util.regex.Pattern;

/**
 * A path specifier of a permission rule ({@code Read(./secrets/**)}, {@code Edit(src/**)}, {@code Read(*.env)}): a
 * gitignore-style glob on a path relative to the workspace root. See {@link PermissionRule} for the syntax. Pure.
 *
 * @param pattern the specifier as written
 * @param regex   the compiled whole-path match
 */
record PathPattern(String pattern, Pattern regex) {

    /**
     * Parses a path specifier.
     *
     * @throws PermissionRule.InvalidRule naming {@code rule} and why the path cannot be used
     */
    static PathPattern parse(String rule, String spec) {
        String p = spec.replace('\\', '/');
        if (p.startsWith("//") || p.startsWith("~")) {
            throw new PermissionRule.InvalidRule(rule, "Cohort's file tools reach only the team's workspace: write the"
                    + " path relative to it, e.g. './secrets/**' (not '//…' or '~/…')");
        }
        boolean anchored = false;
        while (p.startsWith("./") || p.startsWith("/")) {
            p = p.startsWith("./") ? p.substring(2) : p.substring(1);
            anchored = true;
        }
        if (p.equals(".")) {
            p = "";
        }
        for (String segment : p.split("/")) {
            if (segment.equals("..")) {
                throw new PermissionRule.InvalidRule(rule, "'..' cannot climb out of the workspace; write the path from"
                        + " the workspace root");
            }
        }
        boolean directory = p.endsWith("/");
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.isEmpty()) {
            return new PathPattern(spec, Pattern.compile(".*", Pattern.DOTALL)); // the whole workspace
        }
        anchored |= p.contains("/"); // gitignore: a slash inside anchors the pattern at the root
        if (p.endsWith("/**")) {
            p = p.substring(0, p.length() - 3); // the directory itself and everything in it
        } else if (p.equals("**")) {
            return new PathPattern(spec, Pattern.compile(".*", Pattern.DOTALL));
        }
        StringBuilder re = new StringBuilder(anchored ? "" : "(?:.*/)?");
        re.append(glob(rule, p));
        re.append(directory ? "(?:/.*)?" : "");
        return new PathPattern(spec, Pattern.compile(re.toString(), Pattern.DOTALL));
    }

    /**
     * Whether {@code path} (relative to the root, normalised) or one of its ancestor directories matches: denying a
     * directory denies what is in it, as in gitignore.
     */
    boolean matches(String path) {
        String p = path;
        while (!p.isEmpty()) {
            if (regex.matcher(p).matches()) {
                return true;
            }
            int slash = p.lastIndexOf('/');
            p = slash < 0 ? "" : p.substring(0, slash);
        }
        return false;
    }

    private static String glob(String rule, String p) {
        StringBuilder re = new StringBuilder();
        int i = 0;
        while (i < p.length()) {
            char c = p.charAt(i);
            if (c == '*' && p.startsWith("**/", i) && (i == 0 || p.charAt(i - 1) == '/')) {
                re.append("(?:.*/)?"); // zero or more directories
                i += 3;
            } else if (c == '*' && p.startsWith("**", i)) {
                re.append(".*");
                i += 2;
            } else if (c == '*') {
                re.append("[^/]*");
                i++;
            } else if (c == '?') {
                re.append("[^/]");
                i++;
            } else if (c == '[') {
                int close = p.indexOf(']', i + 2);
                if (close < 0) {
                    throw new PermissionRule.InvalidRule(rule, "'[' opens a character class without its ']'");
                }
                String body = p.substring(i + 1, close);
                if (body.startsWith("!")) {
                    body = "^" + body.substring(1);
                }
                re.append('[').append(body.replace("\\", "\\\\").replace("[", "\\[")).append(']');
                i = close + 1;
            } else {
                int next = i;
                while (next < p.length() && "*?[".indexOf(p.charAt(next)) < 0) {
                    next++;
                }
                re.append(Pattern.quote(p.substring(i, next)));
                i = next;
            }
        }
        return re.toString();
    }
}
