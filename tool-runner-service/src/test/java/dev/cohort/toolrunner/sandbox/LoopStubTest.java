package dev.cohort.toolrunner.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The team entry's stub ({@link WarmSandboxes#LOOP_STUB}) without a sandbox: one real {@code /bin/bash} serving call
 * after call, each against a cold {@code bash -c} of the same command, environment and cwd. A {@code /bin/bash} call
 * is {@code eval}'d in a forked subshell; what it sees must be what a new bash gives it (the documented differences
 * aside: {@code $$}, {@code $PPID}), one call's state must not reach the next, and the token never reaches a command.
 */
class LoopStubTest {
    private static final Pattern END = Pattern.compile("\u0000\u001fcohort-end:([^:]+):(\\d+)\n$");

    @TempDir
    Path dir;

    private Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("LANG", "C.UTF-8");
        env.put("HOME", dir.toString());
        return env;
    }

    private record Run(String output, int exitCode) {
    }

    private Run cold(String command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(out, p.exitValue());
    }

    /** One looping stub; {@link #call} sends a header and reads up to its end mark. */
    private final class Entry implements AutoCloseable {
        final Process p;
        final InputStream in;
        final OutputStream out;
        int calls;

        Entry() throws Exception {
            ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-c", WarmSandboxes.LOOP_STUB)
                    .directory(dir.getRoot().toFile()).redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().put("STARTED_WITH", "must-not-reach-the-command");
            p = pb.start();
            in = p.getInputStream();
            out = p.getOutputStream();
            assertThat(in.read()).isEqualTo(WarmSandboxes.READY);
        }

        Run call(String command) throws Exception {
            String token = "tok" + (++calls) + "x" + System.nanoTime();
            out.write(WarmSandboxes.header(token, "/bin/bash", dir, env(), command));
            out.flush();
            assertThat(in.read()).isEqualTo(WarmSandboxes.GO);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                int c = in.read();
                assertThat(c).as("the entry ended before its end mark").isNotEqualTo(-1);
                b.write(c);
                if (c == '\n') {
                    Matcher m = END.matcher(b.toString(StandardCharsets.UTF_8));
                    if (m.find()) {
                        assertThat(m.group(1)).isEqualTo(token);
                        return new Run(b.toString(StandardCharsets.UTF_8).substring(0, m.start()), Integer.parseInt(m.group(2)));
                    }
                }
            }
        }

        @Override
        public void close() throws Exception {
            out.close();
            p.waitFor(10, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }

    /** What a command can see of its shell, except what changes by itself and the documented $$ / $PPID. */
    private static final String PROBE = String.join("; ",
            "echo \"line $LINENO, $# args, 0=$0, SHLVL=$SHLVL, subshell $BASH_SUBSHELL, flags $-, pwd $(pwd) PWD=$PWD\"",
            "compgen -v | grep -v -x -e BASH_ARGV0 | tr '\\n' ' '; echo",
            "declare -p | grep -v -e '^declare -[-a-zA-Z]* \\(BASH_ARGV0\\|_\\|PPID\\|BASHPID\\|BASH_ARGC"
                    + "\\|BASH_COMMAND\\|BASH_SUBSHELL\\|COMP_WORDBREAKS\\|DIRSTACK\\|EPOCHREALTIME\\|EPOCHSECONDS\\|GROUPS"
                    + "\\|HISTCMD\\|RANDOM\\|SECONDS\\|SRANDOM\\|LINENO\\)\\(=\\|$\\)'",
            "env | sort", "shopt -p", "set +o", "trap -p", "declare -F", "umask", "read -r x || echo stdin-at-eof");

    @Test
    void eachCallSeesWhatANewBashGivesItAndNothingOfTheCallBefore() throws Exception {
        Run cold = cold(PROBE);
        assertThat(cold.output()).contains("subshell 0", "SHLVL=1").doesNotContain("STARTED_WITH", "__");
        try (Entry e = new Entry()) {
            assertThat(e.call(PROBE)).isEqualTo(cold);
            // a call that changes its shell (options, variables, functions, traps, cwd, umask) changes nothing for the next
            assertThat(e.call("set -e; shopt -s nullglob; X=1; export Y=2; f() { :; }; trap 'echo t' USR1; cd /; umask 077")
                    .exitCode()).isZero();
            assertThat(e.call(PROBE)).isEqualTo(cold);
        }
    }

    @Test
    void exitCodesAndErrorsAreTheSameAndTheTokenNeverReachesACommand() throws Exception {
        try (Entry e = new Entry()) {
            for (String command : List.of("exit 7", "false", "nosuchcommand-xyz", "echo $((1/0)); echo after",
                    "( exit 3 )", "set -e; false; echo not-reached", "trap 'echo bye' EXIT; echo hi",
                    "cd /nonexistent-dir", "echo \"[${__t-}]\" \"$(set | grep -c '^__')\"")) {
                Run warm = e.call(command);
                Run cold = cold(command);
                assertThat(warm.exitCode()).as(command).isEqualTo(cold.exitCode());
                assertThat(warm.output().replace("eval: line 1: ", "").replace("bash: line 1: ", "bash: "))
                        .as(command).isEqualTo(cold.output().replace("bash: line 1: ", "bash: ").replace("-c: line 1: ", ""));
            }
        }
    }
}
