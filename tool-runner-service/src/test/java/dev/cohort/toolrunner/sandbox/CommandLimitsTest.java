package dev.cohort.toolrunner.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandCgroups;
import dev.cohort.toolrunner.process.OutputCapture;
import dev.cohort.toolrunner.process.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The command limits with real processes: each limit is shown to stop what it is for (a memory hog, a CPU spinner, a
 * runaway file, too many open files, a process spawner), and each check is run once more <em>without</em> that limit,
 * where it must come out the other way, so the check is shown to detect what it looks for. No test depends on timing:
 * the spinner counts its own CPU time, the others end by themselves. Plus the pure parts: the checks of the
 * configuration, the {@code prlimit} step and where the runner's cgroup is.
 */
class CommandLimitsTest {
    private static final long MB = 1L << 20;
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    /** Every limit off; the test sets the one under test. */
    private static CommandLimits.Values none() {
        return new CommandLimits.Values(-1, -1, -1, -1, -1, -1, -1);
    }

    private record Ran(String output, ProcessRunner.Outcome outcome) {
    }

    /** {@code command} under {@code v}'s rlimits ({@code prlimit} right before the shell, as the runner runs it). */
    private Ran run(CommandLimits.Values v, String command) throws Exception {
        return run(CommandLimits.rlimitPrefix(CommandSandbox.onPath("prlimit"), v, false, CommandLimits.ownHardLimits()),
                null, command);
    }

    private Ran run(List<String> prefix, CommandCgroups cgroups, String command) throws Exception {
        OutputCapture c = new OutputCapture(100_000, dir.resolve("out-" + System.nanoTime()), false);
        ProcessRunner.Outcome o = ProcessRunner.run(new ProcessRunner.Spec("/bin/bash", command, dir,
                Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "LANG", "C.UTF-8", "HOME", dir.toString()), TIMEOUT,
                prefix, null, cgroups), c, null);
        return new Ran(c.text("ref"), o);
    }

    // ---- each limit, with and without it

    @Test
    void aMemoryHogIsRefusedItsMemoryAndDiesWhileWithoutTheLimitItGetsIt() throws Exception {
        // bash reads 300 MB into a variable: its heap grows past the 128 MB limit
        String hog = "x=$(head -c 300000000 /dev/zero | tr '\\0' x); echo ALLOCATED";
        Ran limited = run(new CommandLimits.Values(-1, 128 * MB, -1, -1, -1, -1, -1), hog);
        assertThat(limited.output()).as("%s", limited).doesNotContain("ALLOCATED").contains("cannot allocate");
        assertThat(limited.outcome().exitCode()).isNotZero();

        Ran free = run(none(), hog);
        assertThat(free.output()).as("without the limit").isEqualTo("ALLOCATED\n");
    }

    @Test
    void aCpuSpinnerIsStoppedByItsCpuTimeWhileWithoutTheLimitItSpinsOn() throws Exception {
        // spins until it has used 3 s of CPU itself (utime in clock ticks, /proc/<pid>/stat field 14): no wall clock
        String spinner = "hz=$(getconf CLK_TCK); while :; do read -ra s < /proc/$$/stat; (( s[13] >= 3 * hz )) && break;"
                + " done; echo SPUN";
        Ran limited = run(new CommandLimits.Values(-1, -1, 1, -1, -1, -1, -1), spinner);
        assertThat(limited.outcome().timedOut()).as("%s", limited).isFalse();
        assertThat(limited.output()).doesNotContain("SPUN");
        // SIGXCPU at the soft limit (128 + 24), SIGKILL at the hard one a second later (128 + 9)
        assertThat(limited.outcome().exitCode()).isIn(152, 137);

        Ran free = run(none(), spinner);
        assertThat(free.output()).as("without the limit").isEqualTo("SPUN\n");
    }

    @Test
    void aRunawayFileStopsAtTheFileSizeLimitWhileWithoutTheLimitItGrowsOn() throws Exception {
        String runaway = "yes > runaway.txt; echo \"exit=$?\"; stat -c %s runaway.txt";
        Ran limited = run(new CommandLimits.Values(-1, -1, -1, -1, 1 * MB, -1, -1), runaway);
        // yes never stops by itself: only the limit (SIGXFSZ = 128 + 25) ends it, at exactly the limit
        assertThat(limited.output()).as("%s", limited).contains("exit=153").endsWith("\n" + MB + "\n");

        // without the limit: a file of 4 MB is written whole (not a runaway: it would fill the disk)
        Ran free = run(none(), "head -c 4000000 /dev/zero > big.bin; echo \"exit=$?\"; stat -c %s big.bin");
        assertThat(free.output()).as("without the limit").isEqualTo("exit=0\n4000000\n");
        Ran big = run(new CommandLimits.Values(-1, -1, -1, -1, 1 * MB, -1, -1),
                "head -c 4000000 /dev/zero > big2.bin; echo \"exit=$?\"; stat -c %s big2.bin");
        assertThat(big.output()).contains("exit=153").endsWith("\n" + MB + "\n");
    }

    @Test
    void tooManyOpenFilesAreRefusedWhileWithoutTheLimitTheyOpen() throws Exception {
        String opener = "for i in $(seq 1 200); do exec {fd}</dev/null || { echo \"REFUSED at $i\"; break; }; done;"
                + " echo end";
        Ran limited = run(new CommandLimits.Values(-1, -1, -1, -1, -1, 32, -1), opener);
        assertThat(limited.output()).as("%s", limited).contains("Too many open files").contains("REFUSED at ")
                .endsWith("end\n");

        Ran free = run(none(), opener);
        assertThat(free.output()).as("without the limit").isEqualTo("end\n");
    }

    @Test
    void eachLimitIsSetAsSoftAndHardLimitAndCoreDumpsAreOff() throws Exception {
        Ran r = run(new CommandLimits.Values(-1, 256 * MB, 60, -1, 8 * MB, 64, -1),
                "ulimit -c; ulimit -Hc; ulimit -n; ulimit -Hn; ulimit -f; ulimit -Hf; ulimit -Hd; ulimit -t; ulimit -Ht");
        // bash: -f and -d in KiB; the CPU time's hard limit is a second above its soft one (SIGXCPU, then SIGKILL)
        assertThat(r.output()).as("%s", r).isEqualTo("0\n0\n64\n64\n8192\n8192\n262144\n60\n61\n");
    }

    /**
     * A spawner that tries to start 300 processes (perl: bash retries a failed fork for seconds) gets no more than
     * the limit: by the pids cgroup where the runner can create one (as root, the only way), else by
     * {@code RLIMIT_NPROC} in a user namespace of its own (a non-root runner's sandbox). Without the limit all 300
     * start.
     */
    @Test
    void aProcessSpawnerGetsNoMoreThanTheProcessLimitWhileWithoutTheLimitItGetsAll() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/perl")), "needs /usr/bin/perl (Debian: perl-base)");
        String spawner = "/usr/bin/perl -e 'my ($ok, $no) = (0, 0); for (1 .. 300) { my $p = fork;"
                + " if (!defined $p) { $no++; next } if (!$p) { sleep 120; exit 0 } $ok++ }"
                + " print \"started=$ok refused=$no\\n\"'";
        long limit = 40;
        CommandLimits.Values v = new CommandLimits.Values(limit, -1, -1, -1, -1, -1, -1);
        CommandCgroups cgroups = null;
        List<String> prefix;
        CommandCgroups.Detection d = CommandCgroups.detect(ProcessHandle.current().pid());
        if (d.hierarchies().stream().anyMatch(h -> h.controllers().contains("pids"))) {
            cgroups = new CommandCgroups(d.hierarchies(), new CommandCgroups.Settings(limit, -1, -1));
            prefix = List.of();
        } else {
            d.hierarchies().forEach(h -> CommandCgroups.remove(h.parent()));
            Assumptions.assumeFalse(CommandSandbox.runningAsRoot(), "no pids cgroup can be created here (" + d.summary()
                    + ") and RLIMIT_NPROC does not apply to root: nothing can limit processes");
            Assumptions.assumeTrue(bwrapWorks(), "bubblewrap does not work here");
            // a sandbox of a non-root runner: bubblewrap makes a user namespace, where RLIMIT_NPROC counts per sandbox
            prefix = new ArrayList<>(List.of("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    "--unshare-pid", "--die-with-parent", "--"));
            prefix.addAll(CommandLimits.rlimitPrefix(CommandSandbox.onPath("prlimit"), v, true, Map.of()));
        }
        try {
            Ran limited = run(prefix, cgroups, spawner);
            assertThat(limited.output()).as("%s (%s)", limited, d.summary()).startsWith("started=");
            int started = Integer.parseInt(limited.output().replaceAll("(?s)started=(\\d+).*", "$1"));
            assertThat(started).isLessThan((int) limit).isPositive();
        } finally {
            if (cgroups != null) {
                cgroups.close();
            }
        }
        Ran free = run(none(), spawner);
        assertThat(free.output()).as("without the limit").isEqualTo("started=300 refused=0\n");
    }

    private static boolean bwrapWorks() {
        try {
            return new ProcessBuilder("bwrap", "--ro-bind", "/", "/", "--unshare-pid", "true").redirectErrorStream(true)
                    .start().waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    // ---- the configuration's checks

    private record Config(String processes, String memory, String cpuTime, String cpus, String fileSize,
            String openFiles, String outputSize) implements ToolRunnerConfig.Limits {
        static Config defaults() {
            return new Config("1024", "50%", "4h", "80%", "4g", "8192", "64m");
        }

        @Override
        public ToolRunnerConfig.CgroupUse cgroups() {
            return ToolRunnerConfig.CgroupUse.AUTO;
        }
    }

    @Test
    void theDefaultsAreSensibleLimits() {
        CommandLimits.Values v = CommandLimits.parse(Config.defaults(), 16L << 30, 4, 50_000);
        assertThat(v).isEqualTo(new CommandLimits.Values(1024, 8L << 30, 4 * 3600, 3.2, 4L << 30, 8192, 64 * MB));
        assertThat(CommandLimits.parse(new Config("unlimited", "unlimited", "unlimited", "unlimited", "unlimited",
                "unlimited", "unlimited"), 16L << 30, 4, 50_000)).isEqualTo(none());
        assertThat(CommandLimits.parse(new Config("64", "512M", "90s", "1.5", "2m", "64", "1g"), 16L << 30, 4, 50_000))
                .isEqualTo(new CommandLimits.Values(64, 512 * MB, 90, 1.5, 2 * MB, 64, 1L << 30));
    }

    @Test
    void nonsenseValuesStopTheStartWithTheKeyAndWhatWouldDo() {
        Map<Config, String> bad = Map.of(
                new Config("lots", "50%", "4h", "80%", "4g", "8192", "64m"), "limits.processes=lots",
                new Config("2", "50%", "4h", "80%", "4g", "8192", "64m"), "limits.processes=2",
                new Config("1024", "150%", "4h", "80%", "4g", "8192", "64m"), "limits.memory=150%",
                new Config("1024", "-1g", "4h", "80%", "4g", "8192", "64m"), "limits.memory=-1g",
                new Config("1024", "50%", "0s", "80%", "4g", "8192", "64m"), "limits.cpu-time=0s",
                new Config("1024", "50%", "soon", "80%", "4g", "8192", "64m"), "limits.cpu-time=soon",
                new Config("1024", "50%", "4h", "0", "4g", "8192", "64m"), "limits.cpus=0",
                new Config("1024", "50%", "4h", "80%", "10%", "8192", "64m"), "limits.file-size=10%",
                new Config("1024", "50%", "4h", "80%", "4g", "0", "64m"), "limits.open-files=0",
                new Config("1024", "50%", "4h", "80%", "4g", "8192", "1k"), "limits.output-size=1k");
        bad.forEach((c, key) -> assertThatThrownBy(() -> CommandLimits.parse(c, 16L << 30, 4, 50_000))
                .as(key).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cohort.tool-runner." + key + " is not a valid limit"));
        // the stored output must hold at least what a result shows
        assertThatThrownBy(() -> CommandLimits.parse(new Config("1024", "50%", "4h", "80%", "4g", "8192", "100k"),
                16L << 30, 4, 200_000)).hasMessageContaining("at least bash.output-cap");
    }

    @Test
    void thePrlimitStepSetsEachLimitNoHigherThanTheRunnersOwnHardLimit() {
        CommandLimits.Values v = new CommandLimits.Values(1024, 8L << 30, 3600, 2, 4L << 30, 8192, 64 * MB);
        assertThat(CommandLimits.rlimitPrefix("/usr/bin/prlimit", v, true, Map.of("nofile", 4096L)))
                .containsExactly("/usr/bin/prlimit", "--nproc=1024", "--data=8589934592", "--cpu=3600:3601",
                        "--fsize=4294967296", "--nofile=4096", "--core=0", "--");
        // RLIMIT_NPROC only where it counts per sandbox; a limit that is off is not set
        assertThat(CommandLimits.rlimitPrefix("prlimit", new CommandLimits.Values(1024, -1, -1, -1, -1, -1, -1), false,
                Map.of())).containsExactly("prlimit", "--core=0", "--");
    }

    // ---- where the runner's cgroup is (pure)

    @Test
    void theRunnersCgroupIsFoundInTheUnifiedAndInTheV1PidsHierarchy() {
        // this machine's kind: v1 controllers plus a unified hierarchy with none of them
        String hybridCgroup = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/x1\n0::/\n";
        String hybridMounts = String.join("\n",
                "30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755",
                "31 30 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
                "38 30 0:34 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
                "39 30 0:35 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory");
        assertThat(CommandCgroups.ownDir(hybridCgroup, hybridMounts, null)).contains(Path.of("/sys/fs/cgroup/unified"));
        assertThat(CommandCgroups.ownDir(hybridCgroup, hybridMounts, "pids")).contains(Path.of("/sys/fs/cgroup/pids"));
        assertThat(CommandCgroups.ownDir(hybridCgroup, hybridMounts, "memory"))
                .contains(Path.of("/sys/fs/cgroup/memory/process_api/x1"));
        assertThat(CommandCgroups.ownDir(hybridCgroup, hybridMounts, "cpu")).isEmpty();

        // a systemd service on a pure v2 host
        String v2 = "0::/system.slice/cohort.service\n";
        String v2Mounts = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate";
        assertThat(CommandCgroups.ownDir(v2, v2Mounts, null)).contains(Path.of("/sys/fs/cgroup/system.slice/cohort.service"));
        assertThat(CommandCgroups.ownDir(v2, v2Mounts, "pids")).isEmpty();

        // a container whose cgroup2 mount shows only its own subtree (the mount's root is not /)
        String nested = "0::/kubepods/pod1/c1\n";
        String nestedMounts = "700 690 0:26 /kubepods/pod1/c1 /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw";
        assertThat(CommandCgroups.ownDir(nested, nestedMounts, null)).contains(Path.of("/sys/fs/cgroup"));
        assertThat(CommandCgroups.ownDir("0::/elsewhere\n", nestedMounts, null)).isEqualTo(Optional.empty());
    }
}
