package dev.cohort.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service's JVM image as its {@code src/main/docker/Dockerfile.jvm} builds it, as far as the checks need: the base
 * image, the env of each step and of the final image, the user, and the step that trains the start-up cache (JDK 25
 * AOT cache) — a {@code RUN} whose env assignments, composed by the image's {@code run-java.sh} ({@link RunJava}),
 * give the JVM {@code -XX:AOTCacheOutput}.
 *
 * <p>Read: {@code FROM}, {@code ENV KEY="value"} (also {@code KEY=value} and {@code KEY='value'}, several per line),
 * {@code USER}, {@code COPY}/{@code ADD}, {@code RUN}; continuation lines and comments. A {@code RUN} that trains is
 * {@code [KEY="value" …] command …}, its values expanded with the step's env ({@code $KEY}, {@code ${KEY}}) as the
 * shell would.
 */
final class Dockerfile {

    /** How the service must be packaged for an image: Quarkus then honours {@link #STOP_AFTER_INIT}. */
    static final String PACKAGE_FLAG = "-Dquarkus.package.jar.aot.enabled=true";
    /** The system property that makes Quarkus stop right after its initialisation (a training start). */
    static final String STOP_AFTER_INIT = "-Dquarkus.appcds.generate=true";
    /** The image's entrypoint, which composes the JVM's options ({@link RunJava}). */
    static final String RUN_JAVA = "/opt/jboss/container/java/run/run-java.sh";

    private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Za-z_][A-Za-z0-9_]*)=(\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'|(\\S*))\\s*");
    private static final Pattern VARIABLE = Pattern.compile("\\$(?:\\{([A-Za-z_][A-Za-z0-9_]*)}|([A-Za-z_][A-Za-z0-9_]*))");

    /** One instruction: its keyword (upper case), its arguments (continuations joined), the env and user before it. */
    record Step(String keyword, String args, Map<String, String> env, String user) {
    }

    /**
     * The training step: its env (the image's at that step, then the step's own assignments), the command after the
     * assignments, the user it runs as, its index among the steps, and the cache file it writes.
     */
    record Training(int index, Map<String, String> env, String command, String user, String cacheOutput) {
    }

    private final String name;
    private final String header;
    private final List<Step> steps;
    private final Map<String, String> env;

    private Dockerfile(String name, String header, List<Step> steps, Map<String, String> env) {
        this.name = name;
        this.header = header;
        this.steps = steps;
        this.env = env;
    }

    /** The JVM Dockerfile of a service module. */
    static Dockerfile of(String service) {
        Path f = path(service);
        try {
            return parse(Manifest.repo().relativize(f).toString(), Files.readString(f));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path path(String service) {
        return Manifest.repo().resolve(service).resolve("src/main/docker/Dockerfile.jvm");
    }

    /** The service modules with a JVM Dockerfile. */
    static List<String> services() {
        try (var dirs = Files.list(Manifest.repo())) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("src/main/docker/Dockerfile.jvm")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Dockerfile parse(String name, String text) {
        StringBuilder header = new StringBuilder();
        List<String> instructions = new ArrayList<>();
        StringBuilder current = null;
        boolean started = false;
        for (String line : text.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith("#")) {
                if (!started) {
                    header.append(t).append('\n');
                }
                continue;
            }
            if (t.isEmpty() && current == null) {
                continue;
            }
            started = true;
            boolean continues = t.endsWith("\\");
            String part = continues ? t.substring(0, t.length() - 1).strip() : t;
            current = current == null ? new StringBuilder(part) : current.append(' ').append(part);
            if (!continues) {
                instructions.add(current.toString());
                current = null;
            }
        }
        if (current != null) {
            instructions.add(current.toString());
        }
        List<Step> steps = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        String user = "root";
        for (String i : instructions) {
            String[] kv = i.split("\\s+", 2);
            String keyword = kv[0].toUpperCase();
            String args = kv.length > 1 ? kv[1].strip() : "";
            steps.add(new Step(keyword, args, Map.copyOf(env), user));
            switch (keyword) {
                case "ENV" -> env.putAll(assignments(args, env).values);
                case "USER" -> user = args;
                case "FROM" -> {
                    env.clear();
                    user = "root";
                }
                default -> {
                }
            }
        }
        return new Dockerfile(name, header.toString(), List.copyOf(steps), Map.copyOf(env));
    }

    String name() {
        return name;
    }

    /** The comment lines before the first instruction (the build instructions). */
    String header() {
        return header;
    }

    List<Step> steps() {
        return steps;
    }

    /** The image's env at its end: what {@code run-java.sh} sees unless the pod sets a variable. */
    Map<String, String> env() {
        return env;
    }

    /** The base image of the (last) stage. */
    String from() {
        String from = "";
        for (Step s : steps) {
            if (s.keyword().equals("FROM")) {
                from = s.args().split("\\s+")[0];
            }
        }
        return from;
    }

    /** The steps that train an AOT cache: a RUN whose JVM options, composed by run-java.sh, include -XX:AOTCacheOutput. */
    List<Training> trainings() {
        List<Training> out = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (!s.keyword().equals("RUN") || !s.args().contains("-XX:AOTCacheOutput=")) {
                continue;
            }
            Assignments a = assignments(s.args(), s.env());
            Map<String, String> runEnv = new LinkedHashMap<>(s.env());
            runEnv.putAll(a.values);
            String output = RunJava.options(runEnv).stream().filter(o -> o.startsWith("-XX:AOTCacheOutput="))
                    .map(o -> o.substring("-XX:AOTCacheOutput=".length())).reduce((x, y) -> y)
                    .orElse(valueIn(s.args(), "-XX:AOTCacheOutput="));
            out.add(new Training(i, runEnv, a.rest, s.user(), output));
        }
        return out;
    }

    /** The JVM options of the training start, as run-java.sh composes them from its env. */
    static List<String> trainingOptions(Training t) {
        return RunJava.options(t.env());
    }

    /**
     * What would make the image start without its trained cache, or with a cache that does not fit it; empty when
     * the image trains one cache in its build, after the application is in place, through its own run-java.sh, and
     * passes it to every start.
     */
    List<String> aotCacheViolations() {
        List<String> out = new ArrayList<>();
        List<Training> trainings = trainings();
        if (trainings.size() != 1) {
            out.add(name + ": " + trainings.size() + " RUN steps train an AOT cache (-XX:AOTCacheOutput=…), expected one");
            return out;
        }
        Training t = trainings.getFirst();
        String where = name + " RUN " + abbreviate(steps.get(t.index()).args());
        if (!t.command().startsWith(RUN_JAVA)) {
            out.add(where + ": trains with `" + t.command().split("\\s+")[0] + "`, not through the image's " + RUN_JAVA
                    + ": the cache must be made under the options the pods get from it (a cache made under other object-layout"
                    + " options is refused at start)");
        }
        if (!t.command().contains("test -s " + t.cacheOutput())) {
            out.add(where + ": does not check that the cache was written (test -s " + t.cacheOutput() + ")");
        }
        if (!t.user().equals("185")) {
            out.add(where + ": runs as " + t.user() + ", not as the image's user 185");
        }
        if (!t.cacheOutput().startsWith(RunJava.APP_DIR + "/")) {
            out.add(where + ": writes the cache to \"" + t.cacheOutput() + "\", not under " + RunJava.APP_DIR);
        }
        List<String> trained = trainingOptions(t);
        if (!trained.contains(STOP_AFTER_INIT)) {
            out.add(where + ": the training start lacks " + STOP_AFTER_INIT
                    + " (Quarkus would go on to the database and the broker, which the build does not have)");
        }
        if (trained.stream().anyMatch(o -> o.startsWith("-XX:AOTMode=") || o.startsWith("-XX:AOTCache="))) {
            out.add(where + ": sets -XX:AOTMode or -XX:AOTCache beside -XX:AOTCacheOutput (the one-step training takes neither)");
        }
        if (!header.contains(PACKAGE_FLAG)) {
            out.add(name + ": its build instructions do not package the service with " + PACKAGE_FLAG
                    + ", without which Quarkus ignores " + STOP_AFTER_INIT + " and the training start fails");
        }
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if ((s.keyword().equals("COPY") || s.keyword().equals("ADD")) && s.args().contains(RunJava.APP_DIR) && i > t.index()) {
                out.add(name + ": " + s.keyword() + " " + s.args() + " comes after the training: the cache must be made from the"
                        + " final application (the JVM does not always notice other jars, and then the service fails)");
            }
        }
        // the image's own start (no pod env): it passes the cache, and nothing it checks differs from the training's
        List<String> run = RunJava.options(env);
        List<String> caches = RunJava.aotCaches(run);
        if (caches.isEmpty()) {
            out.add(name + ": the image's JAVA_OPTS_APPEND does not pass the trained cache (-XX:AOTCache=" + t.cacheOutput() + ")");
        } else if (!caches.getLast().equals(t.cacheOutput())) {
            out.add(name + ": the image passes -XX:AOTCache=" + caches.getLast() + ", but its build trains " + t.cacheOutput());
        }
        RunJava.aotMode(run).filter(m -> !m.equals("auto"))
                .ifPresent(m -> out.add(name + ": -XX:AOTMode=" + m + " (auto, the default, starts without a cache that does not fit)"));
        for (String m : RunJava.aotCacheMismatches(trained, run)) {
            out.add(name + ": the image's own start would not use its cache: " + m);
        }
        return out;
    }

    /** The leading {@code KEY=value} assignments of a command or ENV line, expanded with {@code env}, and the rest. */
    private record Assignments(Map<String, String> values, String rest) {
    }

    private static Assignments assignments(String s, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        String rest = s;
        Matcher m;
        while ((m = ASSIGNMENT.matcher(rest)).find() && m.end() > 0) {
            String v;
            if (m.group(3) != null) {
                v = expand(m.group(3).replaceAll("\\\\(.)", "$1"), env);
            } else if (m.group(4) != null) {
                v = m.group(4);
            } else {
                v = expand(m.group(5), env);
            }
            values.put(m.group(1), v);
            rest = rest.substring(m.end());
        }
        return new Assignments(values, rest.strip());
    }

    /** {@code $KEY} and {@code ${KEY}} replaced with the env before the step (as Docker does for ENV, the shell for a RUN). */
    private static String expand(String v, Map<String, String> env) {
        Matcher m = VARIABLE.matcher(v);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String key = m.group(1) != null ? m.group(1) : m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement(env.getOrDefault(key, "")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String valueIn(String s, String prefix) {
        int i = s.indexOf(prefix);
        if (i < 0) {
            return "";
        }
        String v = s.substring(i + prefix.length()).split("[\\s\"']")[0];
        return v;
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
