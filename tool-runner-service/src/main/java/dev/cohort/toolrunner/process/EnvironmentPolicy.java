package dev.cohort.toolrunner.process;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The environment of a command: an allowlist of the runner's variables, minus any whose name looks like a secret,
 * plus fixed values (HOME in the runner's state directory, never the workspace, which must not fill with dotfiles;
 * no pagers or prompts, since nobody is there to answer; git identity of the agent). Pure.
 */
public final class EnvironmentPolicy {
    private EnvironmentPolicy() {
    }

    /**
     * @param parent    the runner's own environment
     * @param allowlist names passed through
     * @param denyNames names matching this are dropped even when allowlisted
     * @param home      the team's HOME directory
     */
    public static Map<String, String> childEnvironment(Map<String, String> parent, Collection<String> allowlist,
            Pattern denyNames, Path home, String team, String agent) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : allowlist) {
            String v = parent.get(name);
            if (v != null && !denyNames.matcher(name).matches()) {
                env.put(name, v);
            }
        }
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putIfAbsent("LANG", "C.UTF-8");
        env.put("HOME", home.toString());
        env.put("TERM", "dumb");
        env.put("PAGER", "cat");
        env.put("GIT_PAGER", "cat");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_EDITOR", "true");
        env.put("DEBIAN_FRONTEND", "noninteractive");
        env.put("CI", "true");
        env.put("GIT_AUTHOR_NAME", "cohort " + team + "/" + agent);
        env.put("GIT_AUTHOR_EMAIL", agent + "@" + team + ".cohort.invalid");
        env.put("GIT_COMMITTER_NAME", "cohort " + team + "/" + agent);
        env.put("GIT_COMMITTER_EMAIL", agent + "@" + team + ".cohort.invalid");
        return env;
    }
}
