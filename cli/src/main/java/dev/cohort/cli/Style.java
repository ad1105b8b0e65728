package dev.cohort.cli;

import java.io.Console;

/** ANSI colours, or none: only when stdout is a terminal and {@code NO_COLOR} is unset (https://no-color.org). */
record Style(boolean color) {

    static final Style PLAIN = new Style(false);

    /** Colours when {@code System.console()} is a terminal and {@code NO_COLOR} is unset or empty. */
    static Style detect() {
        String noColor = System.getenv("NO_COLOR");
        return new Style(isTerminal() && (noColor == null || noColor.isEmpty()));
    }

    /**
     * True when stdin and stdout are a terminal. Since JDK 22 {@code System.console()} may return a console for
     * redirected streams too; {@code Console.isTerminal()} (22+) tells, read reflectively as the build targets 21.
     */
    static boolean isTerminal() {
        Console c = System.console();
        if (c == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return true;
        }
    }

    private String wrap(String code, String s) {
        return color ? "\u001b[" + code + "m" + s + "\u001b[0m" : s;
    }

    String bold(String s) {
        return wrap("1", s);
    }

    String dim(String s) {
        return wrap("2", s);
    }

    String red(String s) {
        return wrap("31", s);
    }

    String green(String s) {
        return wrap("32", s);
    }

    String yellow(String s) {
        return wrap("33", s);
    }

    String blue(String s) {
        return wrap("34", s);
    }

    String magenta(String s) {
        return wrap("35", s);
    }

    String cyan(String s) {
        return wrap("36", s);
    }
}
