package dev.cohort.core.protocol;

/** Text placed inside XML-like elements of a prompt: other agents' messages, memories, skills, the team's rules. */
public final class XmlText {
    private XmlText() {
    }

    /** XML text escaping, so content cannot close or forge the surrounding elements. */
    public static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
