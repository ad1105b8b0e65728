package dev.cohort.core.memory;

import java.text.Normalizer;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;

/**
 * Memory names: slugged to {@code [a-z0-9-]}, at most {@link #MAX_LENGTH} characters, never a name a
 * file system reserves, so a name is safe as a file name, a key and a prompt line.
 */
public final class MemoryNames {
    /** Long enough for "user-preference-indentation-tabs"; short enough for an index line. */
    public static final int MAX_LENGTH = 64;
    private static final Set<String> RESERVED = Set.of("con", "prn", "aux", "nul", "com1", "com2", "com3", "com4",
            "com5", "com6", "com7", "com8", "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8",
            "lpt9", "memory", "index");

    private MemoryNames() {
    }

    /** The slug of a name: lower case ASCII letters, digits and single dashes; {@code memory-1} when nothing is left. */
    public static String slug(String name) {
        String s = name == null ? "" : Normalizer.normalize(name, Normalizer.Form.NFKD).toLowerCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder();
        boolean dash = false;
        for (int i = 0; i < s.length() && sb.length() < MAX_LENGTH; i++) {
            char c = s.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                sb.append(c);
                dash = false;
            } else if (!dash && sb.length() > 0 && Character.getType(c) != Character.NON_SPACING_MARK) {
                sb.append('-');
                dash = true;
            }
        }
        String r = sb.toString().replaceAll("-+$", "");
        if (r.isEmpty()) {
            return "memory-1";
        }
        return RESERVED.contains(r) ? r + "-1" : r;
    }

    /** {@code slug} itself when free, else {@code slug-2}, {@code slug-3}, … (capped to the length). */
    public static String unique(String slug, Collection<String> taken) {
        if (!taken.contains(slug)) {
            return slug;
        }
        for (int i = 2; ; i++) {
            String suffix = "-" + i;
            String base = slug.length() + suffix.length() > MAX_LENGTH ? slug.substring(0, MAX_LENGTH - suffix.length())
                    : slug;
            if (!taken.contains(base + suffix)) {
                return base + suffix;
            }
        }
    }
}
