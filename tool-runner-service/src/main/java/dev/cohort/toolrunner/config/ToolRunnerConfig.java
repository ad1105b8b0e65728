package dev.cohort.toolrunner.config;

import dev.cohort.toolrunner.sandbox.Sandbox;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Configuration of tool-runner-service ({@code cohort.tool-runner.*}); every limit says why it has its value. */
@ConfigMapping(prefix = "cohort.tool-runner")
public interface ToolRunnerConfig {

    /**
     * What this process is. {@code runner}: it journals the calls and runs them in its own team sandboxes ({@code cohort
     * up}, tests). {@code control}: it journals the calls and runs each in its team's sandbox pod, claimed through
     * kubernetes-sigs/agent-sandbox ({@link #kubernetes()}); it has no workspace. {@code sandbox}: the agent in one
     * team's sandbox pod; it runs the calls of the team that bound it ({@code PUT /internal/v1/sandbox/binding}) and
     * holds no database, Kafka or service credential.
     */
    @WithDefault("runner")
    Role role();

    /** What a tool-runner process is ({@link #role()}). */
    enum Role {
        RUNNER, CONTROL, SANDBOX
    }

    /** The control half's team sandboxes on Kubernetes ({@code role=control}). */
    Kubernetes kubernetes();

    /** Where the team sandboxes are claimed and how they are reached. */
    interface Kubernetes {
        /** The namespace of the claims and sandboxes: the control half's own (the pod's, by the downward API). */
        Optional<String> namespace();

        /** The SandboxWarmPool claims are taken from ({@code k8s/components/agent-sandbox}). */
        @WithDefault("team-sandbox")
        String warmPool();

        /** The sandbox agent's port (the template's container port {@code agent}). */
        @WithDefault("7070")
        int agentPort();

        /** How long a call waits for its team's sandbox to be bound and ready (a cold pod: scheduling, pull, PVC). */
        @WithDefault("2m")
        Duration readyTimeout();

        /** How often the sandboxes this replica serves are asked for finished background jobs to announce. */
        @WithDefault("2s")
        Duration noticePoll();
    }

    /** Root workspace; the {@code default} team works here (in {@code cohort up}: the directory it was started in). */
    Path workspaceRoot();

    /**
     * The directories a team's own workspace ({@code POST /api/v1/teams {workspace}}) may be in, symlinks resolved;
     * default: the workspace root alone. The runner is the only component that touches files, so it is the one that
     * decides which directories an API caller may hand to agents.
     */
    Optional<List<Path>> workspaceRoots();

    /**
     * Where other teams' workspaces live: {@code <teams-dir>/<team>}, relative to the workspace root unless absolute.
     */
    @WithDefault("teams")
    String teamsDir();

    /**
     * Runner state (large outputs, background logs, per-team HOME, worktrees). Must be outside every workspace so the
     * agents' own glob/grep never find it and a careless {@code git add -A} never commits it.
     */
    Path stateDir();

    /** Where worktrees are created ({@code <dir>/<team>/<name>}); default {@code <state-dir>/worktrees}, outside the main tree. */
    Optional<Path> worktreesDir();

    /** When set, every {@code /internal} call needs {@code Authorization: Bearer <token>} (platform's filter, {@code cohort.web.bearer}). */
    Optional<String> token();

    /**
     * The sandbox of {@code bash} (and background jobs): {@code auto} (bubblewrap where it works, else the
     * {@code unshare} fallback, else the runner refuses to start), {@code bubblewrap}, {@code unshare}, or
     * {@code none} (explicit opt-out: commands run with the runner's rights). A requested kind that does not work on
     * the machine stops the start-up with the reason; the runner never falls back to {@code none} by itself.
     */
    @WithDefault("auto")
    Sandbox sandbox();

    /**
     * How long a sandbox lives: {@code team} (a team's commands run in its sandbox, built once and kept while it is
     * used: {@code TeamSandboxes}) or {@code call} (every command builds a sandbox of its own, possibly started ahead of
     * the call: {@code warm-sandbox}).
     */
    @WithDefault("team")
    SandboxScope sandboxScope();

    /** A team sandbox without a call or background job for this long is stopped; the next call starts it again. */
    @WithDefault("10m")
    Duration sandboxIdleTimeout();

    /** Where a sandbox lives. */
    enum SandboxScope {
        TEAM, CALL
    }

    /** The bubblewrap binary (Debian package {@code bubblewrap}). */
    @WithDefault("bwrap")
    String bwrapPath();

    /** The util-linux {@code unshare} binary of the fallback sandbox. */
    @WithDefault("unshare")
    String unsharePath();

    /**
     * Teams whose commands keep the host's network inside the sandbox ({@code *} = every team). Default: none, since
     * a command with network reaches the services on loopback and anything the host can reach.
     */
    Optional<List<String>> sandboxNetworkTeams();

    /**
     * Further directories hidden inside the sandbox, beside the user's home ({@code user.home}, {@code $HOME}), the
     * CLI's {@code ~/.cohort} ({@code COHORT_HOME}) and the state directory, which are always hidden.
     */
    Optional<List<Path>> sandboxHiddenPaths();

    /**
     * Files or directories made visible again, read-only, inside the sandbox after the hiding (e.g. a JDK installed
     * under the user's home, or an {@code /etc/resolv.conf} target in {@code /run} for a team with network).
     */
    Optional<List<Path>> sandboxReadOnlyPaths();

    /** The shell that runs {@code bash} commands. */
    @WithDefault("/bin/bash")
    String shell();

    /** Id of this runner instance; running calls and jobs recorded under it are declared lost when it restarts. */
    @WithDefault("local")
    String instanceId();

    /** At most this many tool calls execute at once; more wait (bounded pool, so a burst cannot fork-bomb the host). */
    @WithDefault("64")
    int maxConcurrentCalls();

    /** How long a call waits for a free slot before the runner answers 503. */
    @WithDefault("60s")
    Duration queueTimeout();

    /** Large outputs and background logs older than this are deleted at start-up (they may contain secrets). */
    @WithDefault("7d")
    Duration outputRetention();

    Bash bash();

    /** Warm sandboxes: {@code bash} calls start in a sandbox started before they arrived ({@code WarmSandboxes}). */
    WarmSandbox warmSandbox();

    Env env();

    Read read();

    Search search();

    Background background();

    /** What one command may use ({@code CommandLimits}): processes, memory, CPU, file size, open files, stored output. */
    Limits limits();

    /** Git invocations made by the runner itself (worktrees, workspace initialisation). */
    @WithDefault("30s")
    Duration gitTimeout();

    /** Sandbox kinds that can be requested. */
    enum Sandbox {
        AUTO, BUBBLEWRAP, UNSHARE, NONE
    }

    /** The {@code bash} tool. */
    interface Bash {
        /** Default timeout (the tutorial's 120 s); the whole process group is killed when it expires. */
        @WithDefault("120s")
        Duration defaultTimeout();

        /** Upper bound for a model-requested {@code timeout_ms}: longer work belongs in the background. */
        @WithDefault("10m")
        Duration maxTimeout();

        /** Output cap in characters (the tutorial's 50,000); head and tail are kept, the rest is in {@code outputRef}. */
        @WithDefault("50000")
        int outputCap();
    }

    /**
     * Pre-started sandboxes for foreground {@code bash} calls: the sandbox's start (bubblewrap's namespaces and mounts,
     * the JVM's spawn) leaves the call's latency path. Each serves one call, so isolation between calls is unchanged.
     */
    interface WarmSandbox {
        /** Off: every call starts its sandbox itself (as before). */
        @WithDefault("true")
        boolean enabled();

        /**
         * Warm sandboxes kept ready per pool (one pool per team and containment root): five, so a replacement has
         * about five calls' time to start. A sandbox's start took 12 ms p50 and 16-23 ms p90 while an agent's rounds
         * kept both cores busy; with three and 7-8 ms rounds (2026-12-04), one call in ten still found the next one
         * starting and waited for it, 2.6 ms at p90 (tool-runner README, "Five warm sandboxes per pool").
         */
        @WithDefault("5")
        int size();

        /**
         * At most this many pools of per-call warm sandboxes (each {@code size} pre-started sandboxes); the least recently
         * used one is evicted.
         */
        @WithDefault("8")
        int maxPools();

        /**
         * At most this many pools of entries into team sandboxes (one per team sandbox in use; each holds at most
         * {@code size} idle entries, a {@code bash} each, inside a sandbox that exists anyway, and is not refilled
         * ahead). Beyond it a team's calls start an entry per call, used once. A cap far below the teams at work made
         * most calls pay that start (the many-teams benchmark, docs/benchmarks/many-teams.md).
         */
        @WithDefault("1024")
        int maxEntryPools();

        /** A pool unused this long is evicted (its processes killed); the next call starts one again. */
        @WithDefault("5m")
        Duration idleTimeout();
    }

    /** The scrubbed environment of commands. */
    interface Env {
        /** Variables passed through from the runner's environment; everything else is dropped. */
        @WithDefault("PATH,LANG,LANGUAGE,LC_ALL,LC_CTYPE,LC_MESSAGES,TERM,TZ,USER,LOGNAME,SHELL,JAVA_HOME,MAVEN_HOME,GOPATH")
        List<String> allowlist();

        /**
         * Names matching this regex are dropped even when allowlisted: secrets must never reach a transcript or the
         * model provider.
         */
        @WithDefault("(?i).*(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|JAAS).*")
        String denyNamePattern();
    }

    /** {@code read_file}. */
    interface Read {
        /** Lines returned when the model gives no {@code limit}: enough for most source files, small for the context. */
        @WithDefault("2000")
        int defaultLineLimit();

        /** Character cap of one read (same order as the bash cap); a notice says how to continue. */
        @WithDefault("50000")
        int charCap();

        /** Longer lines are cut (minified files would otherwise fill the cap with one line). */
        @WithDefault("2000")
        int maxLineChars();
    }

    /** {@code glob} and {@code grep}. */
    interface Search {
        /** Paths returned by {@code glob}; the rest is counted and reported. */
        @WithDefault("200")
        int globMaxResults();

        /** Matches returned by {@code grep} when the model gives no {@code max_results}. */
        @WithDefault("100")
        int grepDefaultResults();

        /** Upper bound for {@code max_results}. */
        @WithDefault("1000")
        int grepMaxResults();

        /** Matching lines longer than this are cut. */
        @WithDefault("500")
        int grepMaxLineChars();

        /** Wall-time budget of one search; also bounds catastrophic regex backtracking. */
        @WithDefault("20s")
        Duration timeout();

        /** Files larger than this are skipped by grep (logs and blobs, not source). */
        @WithDefault("10000000")
        long grepMaxFileBytes();
    }

    /**
     * Limits of one command ({@code bash} and background jobs), applied inside its sandbox before the command runs:
     * cgroups where the machine lets the runner create them, else rlimits (tool-runner README, "Limits"). Sizes are
     * bytes with an optional {@code k}, {@code m}, {@code g} or {@code t} (powers of 1024); {@code unlimited} turns a
     * limit off. Each value is checked at start-up: a nonsense value stops the runner with the key and the reason.
     */
    interface Limits {
        /**
         * Processes and threads of one command (cgroup {@code pids.max}; else {@code RLIMIT_NPROC} where it counts per
         * sandbox, i.e. in the user namespace of a sandbox of a non-root runner). Enough for parallel builds; a fork
         * bomb stops there.
         */
        @WithDefault("1024")
        String processes();

        /**
         * Memory of each process ({@code RLIMIT_DATA}: heap and private mappings; address space reserved but unused,
         * as a JVM or V8 reserves it, does not count) and, with cgroups v2, of the whole command ({@code memory.max}).
         * A size, or a share of the machine's memory such as {@code 50%}.
         */
        @WithDefault("50%")
        String memory();

        /**
         * CPU time of each process ({@code RLIMIT_CPU}): a backstop behind the wall-clock timeouts, which already kill
         * the whole command; long enough for any build within a background job's timeout.
         */
        @WithDefault("4h")
        String cpuTime();

        /**
         * CPUs one command may keep busy (cgroups v2 {@code cpu.max}, so one runaway leaves the rest of the machine to
         * the runner and the other teams): a number of CPUs such as {@code 1.5}, or a share of the machine's such as
         * {@code 80%}. Without cgroups v2 there is no such share; only {@code cpu-time} applies.
         */
        @WithDefault("80%")
        String cpus();

        /** Largest file a command may write ({@code RLIMIT_FSIZE}): a runaway {@code yes > f} stops there. */
        @WithDefault("4g")
        String fileSize();

        /** Open files of each process ({@code RLIMIT_NOFILE}, soft and hard: a command cannot raise it). */
        @WithDefault("8192")
        String openFiles();

        /**
         * Output of one command stored by the runner (its {@code outputRef}, a background job's log), in characters:
         * past it the rest is not stored and the command's process group is killed, so a never-ending output neither
         * fills the disk nor holds a slot until its timeout.
         */
        @WithDefault("64m")
        String outputSize();

        /**
         * {@code auto}: use cgroups where the runner can create them (detected once at start-up, shown in
         * {@code /q/health/ready}); {@code off}: rlimits only.
         */
        @WithDefault("auto")
        CgroupUse cgroups();
    }

    /** Whether command limits use cgroups. */
    enum CgroupUse {
        AUTO, OFF
    }

    /** Background jobs. */
    interface Background {
        /** Default timeout of a background job: builds and installs take minutes, not the foreground 120 s. */
        @WithDefault("30m")
        Duration timeout();

        /** Characters of output carried in the {@code background_done} message (the tutorial showed only 200). */
        @WithDefault("2000")
        int summaryChars();

        /**
         * Commands that go to the background unless the model says {@code run_in_background=false}: word sequences
         * matched at command position of each simple command (so {@code echo "make sure"} is not a build).
         */
        @WithDefault("pip install,pip3 install,npm install,npm ci,yarn install,docker build,cargo build,go build,"
                + "python -m pytest,python3 -m pytest,python -m build,python3 -m build,pytest,make,deploy,"
                + "npm run build,npm run test")
        List<String> slowCommands();

        /** Running jobs per team; more are refused with a model-visible error. */
        @WithDefault("16")
        int maxRunningPerTeam();

        /**
         * How long a cancel waits for the job's end to be stored before answering: killing a process group and one
         * database update take milliseconds; the bound only keeps a stuck kill from holding the request forever.
         */
        @WithDefault("10s")
        Duration cancelWait();
    }
}
