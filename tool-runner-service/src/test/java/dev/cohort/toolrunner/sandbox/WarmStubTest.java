package dev.cohort.toolrunner.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The warm sandbox's stub ({@link WarmSandboxes#STUB}) without a sandbox: real {@code /bin/bash} processes, the stub
 * against a cold {@code bash -c} of the same command, environment and cwd. A {@code /bin/bash} call runs in the stub's
 * own shell; what the command sees must be what a new bash gives it, and a call whose environment a new bash would
 * treat specially at start gets a new bash. ({@code WarmSandboxTest} compares warm and cold inside bubblewrap.)
 */
class WarmStubTest {
    @TempDir
    Path dir;

    private Map<String, String> env(String... extra) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("LANG", "C.UTF-8");
        env.put("HOME", dir.toString());
        env.put("GIT_AUTHOR_NAME", "cohort t/lead");
        for (int i = 0; i < extra.length; i += 2) {
            env.put(extra[i], extra[i + 1]);
        }
        return env;
    }

    private record Run(String output, int exitCode) {
    }

    private Run cold(String shell, String command, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(shell, "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        return finish(pb.start(), new ByteArrayOutputStream());
    }

    private Run warm(String shell, String command, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-c", WarmSandboxes.STUB).directory(dir.getRoot().toFile())
                .redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("STARTED_WITH", "must-not-reach-the-command"); // a warm sandbox's own start environment
        Process p = pb.start();
        InputStream in = p.getInputStream();
        assertThat(in.read()).isEqualTo(WarmSandboxes.READY);
        try (OutputStream out = p.getOutputStream()) {
            out.write(WarmSandboxes.header(shell, dir, env, command));
        }
        assertThat(in.read()).isEqualTo(WarmSandboxes.GO);
        return finish(p, new ByteArrayOutputStream());
    }

    private static Run finish(Process p, ByteArrayOutputStream out) throws Exception {
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(out.toString(StandardCharsets.UTF_8), p.exitValue());
    }

    /** Everything a command can see of its shell, except what changes by itself (pids, clocks, random numbers). */
    private static final String PROBE = String.join("; ",
            "echo \"line $LINENO, $# args, 0=$0, SHLVL=$SHLVL, flags $-, pwd $(pwd) PWD=$PWD\"",
            "compgen -v | grep -v -x -e BASH_ARGV0 | tr '\\n' ' '; echo",
            "declare -p | grep -v -e '^declare -[-a-zA-Z]* \\(BASH_ARGV0\\|_\\|PPID\\|BASHPID\\|BASH_ARGC"
                    + "\\|BASH_COMMAND\\|BASH_SUBSHELL\\|COMP_WORDBREAKS\\|DIRSTACK\\|EPOCHREALTIME\\|EPOCHSECONDS\\|GROUPS"
                    + "\\|HISTCMD\\|RANDOM\\|SECONDS\\|SRANDOM\\|LINENO\\)\\(=\\|$\\)'",
            "env | sort", "shopt -p", "set +o", "trap -p", "declare -F", "ulimit -a", "umask",
            "read -r x || echo stdin-at-eof")
            + "\necho \"second line $LINENO\"; f() { echo \"${FUNCNAME[*]} ${BASH_LINENO[*]} ${BASH_SOURCE[*]}\"; }; f";

    @Test
    void aBashCallRunInTheStubsShellSeesWhatANewBashGivesIt() throws Exception {
        Run cold = cold("/bin/bash", PROBE, env());
        Run warm = warm("/bin/bash", PROBE, env());
        assertThat(cold.exitCode()).isZero();
        assertThat(cold.output()).contains("line 1, 0 args", "SHLVL=1", "declare -x OLDPWD", "second line 2",
                "GIT_AUTHOR_NAME=cohort t/lead", "stdin-at-eof").doesNotContain("STARTED_WITH", "__");
        assertThat(warm.output()).isEqualTo(cold.output());
        assertThat(warm.exitCode()).isEqualTo(cold.exitCode());
    }

    @Test
    void exitCodesAndRuntimeErrorsAreTheSame() throws Exception {
        for (String command : List.of("exit 7", "false", "nosuchcommand-xyz", "echo $((1/0)); echo after", "( exit 3 )",
                "set -e; false; echo not-reached", "return 4", "shift; echo $#", "echo a\nnosuchcommand-2",
                "trap 'echo bye' EXIT; echo hi", "kill -TERM $$", "cd /nonexistent-dir", "echo $_")) {
            Run cold = cold("/bin/bash", command, env());
            Run warm = warm("/bin/bash", command, env());
            if (command.equals("echo $_")) {
                // documented difference: $_ before the first command
                assertThat(warm.exitCode()).isZero();
                continue;
            }
            assertThat(warm).as(command).isEqualTo(cold);
        }
    }

    @Test
    void aSyntaxErrorFailsTheSameWayWithOnlyThePrefixDifferent() throws Exception {
        for (String command : List.of("echo a; if", "echo \"unterminated", "& echo x", ") oops")) {
            Run cold = cold("/bin/bash", command, env());
            Run warm = warm("/bin/bash", command, env());
            assertThat(warm.exitCode()).as(command).isEqualTo(cold.exitCode()).isEqualTo(2);
            assertThat(warm.output().replaceAll("(?m)^/bin/bash: (-c: line 1: )?eval: line ", "/bin/bash: -c: line ")
                    .replaceAll("(?m)^/bin/bash: (?!-c: )", "/bin/bash: -c: line 1: "))
                    .as(command).isEqualTo(cold.output());
        }
    }

    @Test
    void anEnvironmentANewBashReadsAtStartGetsANewBash() throws Exception {
        Path rc = Files.writeString(dir.resolve("rc.sh"), "echo sourced-bash-env\n");
        Map<String, Map<String, String>> cases = Map.of(
                "type f; echo $SHLVL", env("BASH_ENV", rc.toString()),
                "echo \"[$IFS]\" | od -c | head -1", env("IFS", ":"),
                "echo $SHLVL", env("SHLVL", "4"),
                "echo $PWD", env("PWD", "/"));
        for (var c : cases.entrySet()) {
            Run cold = cold("/bin/bash", c.getKey(), c.getValue());
            Run warm = warm("/bin/bash", c.getKey(), c.getValue());
            assertThat(warm).as(c.getKey() + " with " + c.getValue()).isEqualTo(cold);
        }
        assertThat(warm("/bin/bash", "true", env("BASH_ENV", rc.toString())).output()).isEqualTo("sourced-bash-env\n");
    }

    @Test
    void anotherShellIsExecutedAsBefore() throws Exception {
        String command = "echo \"$0 $#\"; env | sort";
        Run cold = cold("/bin/sh", command, env());
        Run warm = warm("/bin/sh", command, env());
        // bash's exec exports SHLVL (one less than its own, here 0) to what it runs: a new bash makes it 1 again, another
        // shell keeps it (as before this fast path)
        assertThat(warm.exitCode()).isEqualTo(cold.exitCode());
        assertThat(warm.output().replace("SHLVL=0\n", "")).isEqualTo(cold.output());
        assertThat(warm.output()).startsWith("/bin/sh 0\n");
    }

    @Test
    void everyByteOfTheHeadersFieldsReachesTheCommandAsItWasSent() throws Exception {
        // the header's fields are cut by their byte lengths: newlines, quotes, backslashes, spaces at both ends, '=',
        // an empty value, a field that looks like a length, non-ASCII and a field longer than the pipe's buffer arrive
        // exactly, in the command and the environment
        Map<String, String> env = new TreeMap<>(env());
        env.put("A", " lead\n\\n mid 'q' \"d\" `id` $(id) trail \n\n");
        env.put("B", "");
        env.put("C", "x=y=z");
        env.put("D", "00000003abc");
        env.put("E", "h\u00e9llo \u4e16\u754c \ud83d\ude00");
        env.put("F", "y".repeat(70_000));
        String command = "printf '[%s]\\n' \"$A\" \"$B\" \"$C\" \"$D\" \"$E\" \"${#F}\" \"$PWD\"; printf '%s' '\n 00000001\n'";
        Run cold = cold("/bin/bash", command, env);
        Run warm = warm("/bin/bash", command, env);
        assertThat(cold.output()).contains("[ lead\n\\n mid 'q' \"d\" `id` $(id) trail \n\n]", "[]", "[x=y=z]",
                "[00000003abc]", "[h\u00e9llo \u4e16\u754c \ud83d\ude00]", "[70000]");
        assertThat(warm).isEqualTo(cold);
    }

    @Test
    void aFieldWithANulCannotBeSentSoTheCallStartsCold() {
        assertThat(WarmSandboxes.header("/bin/bash", dir, env(), "echo a\0b")).isNull();
        assertThat(WarmSandboxes.header("/bin/bash", dir, Map.of("A", "x\0y"), "true")).isNull();
        assertThat(WarmSandboxes.header("/bin/bash", dir, env(), "true")).startsWith("000".getBytes());
    }

    @Test
    void theStubIsOneLineSoTheCommandsLineNumbersAreItsOwn() throws IOException {
        assertThat(WarmSandboxes.STUB).doesNotContain("\n");
    }
}
