package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Capacity that adds up: what the services can ask of PostgreSQL at their most pods fits what it admits, and what
 * PostgreSQL may then use fits the memory it is given.
 */
final class Capacity {

    /** PostgreSQL's default {@code max_connections}. */
    static final int PG_DEFAULT_MAX_CONNECTIONS = 100;
    /** PostgreSQL's default {@code superuser_reserved_connections}: slots the application can never use. */
    static final int PG_DEFAULT_SUPERUSER_RESERVED = 3;
    /**
     * Connections kept free besides the reserved ones: CloudNativePG's instance manager and the operator's checks,
     * a {@code psql} of an operator on call, the exporter.
     */
    static final int HEADROOM = 10;
    /** Agroal's {@code quarkus.datasource.jdbc.max-size} when nothing sets it (Quarkus 3 docs). */
    static final int QUARKUS_DEFAULT_POOL = 20;
    /**
     * The private memory budgeted for each PostgreSQL backend besides its {@code work_mem}: catalog and relation
     * caches, plan caches, the process's own stack and libraries, and its page tables for the shared buffers it maps.
     * Measured, a fresh connection takes under 2 MiB with huge pages (Andres Freund, "Measuring the Memory Overhead
     * of a Postgres Connection", 2020) and up to about 10 MiB without them, independent of {@code work_mem} (PGConf.DE
     * 2025, "PostgreSQL Connections Memory Usage: How Much, Why and When?"); Kubernetes nodes rarely give PostgreSQL
     * huge pages, so the upper figure.
     */
    static final long BACKEND_OVERHEAD_BYTES = 10L << 20;
    /**
     * The share of an instance's memory limit the budget may fill. The rest is for what the formula leaves out: the
     * instance manager (CNPG's Go process in the same container), PostgreSQL's auxiliary processes and WAL senders,
     * wal_buffers and other shared memory, temp_buffers, and queries that use more than one {@code work_mem} (one
     * per sort or hash node, hashes up to {@code hash_mem_multiplier} times).
     */
    static final double MEMORY_SHARE = 0.8;
    /** PostgreSQL's default {@code autovacuum_max_workers} (PostgreSQL 13–18). */
    static final int PG_DEFAULT_AUTOVACUUM_WORKERS = 3;

    private Capacity() {
    }

    /**
     * For each CNPG Cluster: Σ over the workloads that take its {@code <cluster>-app} Secret of pool size × most pods
     * (replicas or the autoscaler's maximum, plus a rolling update's surge) ≤ {@code max_connections} −
     * {@code superuser_reserved_connections} − {@link #HEADROOM}. Otherwise a scale-up or a rollout at full scale
     * gets "too many clients" and the services' pools fail.
     */
    static List<String> connectionsFitPostgres(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : m.ofKind("Cluster")) {
            JsonNode params = c.path("spec").path("postgresql").path("parameters");
            int max = Integer.parseInt(params.path("max_connections").asText(Integer.toString(PG_DEFAULT_MAX_CONNECTIONS)));
            int reserved = Integer.parseInt(params.path("superuser_reserved_connections").asText(Integer.toString(PG_DEFAULT_SUPERUSER_RESERVED)));
            String secret = Manifest.nameOf(c) + "-app";
            int total = 0;
            List<String> parts = new ArrayList<>();
            for (JsonNode w : m.workloads()) {
                if (!usesSecret(w, secret)) {
                    continue;
                }
                int pool = poolSize(m, w);
                int pods = mostPods(m, w);
                total += pool * pods;
                parts.add(Manifest.nameOf(w) + " " + pods + " × " + pool);
            }
            int budget = max - reserved - HEADROOM;
            if (total > budget) {
                out.add(Manifest.id(c) + ": the services may open " + total + " connections (" + String.join(" + ", parts)
                        + ") but max_connections " + max + " − " + reserved + " reserved − " + HEADROOM + " headroom leaves " + budget);
            }
        }
        return out;
    }

    /** The most pods a workload can have at once: its autoscaler's maximum or its replicas, plus the rollout surge. */
    static int mostPods(Manifest m, JsonNode w) {
        int pods = Manifest.replicas(w);
        for (JsonNode so : m.ofKind("ScaledObject")) {
            if (so.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w))) {
                pods = Math.max(pods, so.path("spec").path("maxReplicaCount").asInt(CrossReferences.KEDA_DEFAULT_MAX_REPLICAS));
            }
        }
        for (JsonNode h : m.ofKind("HorizontalPodAutoscaler")) {
            if (h.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w))) {
                pods = Math.max(pods, h.path("spec").path("maxReplicas").asInt(1));
            }
        }
        JsonNode strategy = w.path("spec").path("strategy");
        if (w.path("kind").asText().equals("Deployment") && !strategy.path("type").asText("RollingUpdate").equals("Recreate")) {
            JsonNode surge = strategy.path("rollingUpdate").path("maxSurge");
            // the API's default is 25 %, rounded up
            String s = surge.isMissingNode() ? "25%" : surge.asText();
            pods += s.endsWith("%") ? (int) Math.ceil(pods * Integer.parseInt(s.substring(0, s.length() - 1)) / 100.0) : Integer.parseInt(s);
        }
        return pods;
    }

    /** The pool size of a workload's service: its env, else its application.properties, else Quarkus' default. */
    static int poolSize(Manifest m, JsonNode w) {
        String fromEnv = CrossReferences.containerEnv(m, w).get("QUARKUS_DATASOURCE_JDBC_MAX_SIZE");
        if (fromEnv != null) {
            return Integer.parseInt(fromEnv.strip());
        }
        String app = Manifest.podLabels(w).get("app.kubernetes.io/name");
        Optional<Properties> props = app == null ? Optional.empty() : CrossReferences.applicationProperties(app);
        return props.map(p -> p.getProperty("quarkus.datasource.jdbc.max-size")).map(v -> Integer.parseInt(v.strip()))
                .orElse(QUARKUS_DEFAULT_POOL);
    }

    /**
     * Every Cohort container and every PostgreSQL instance (a CNPG Cluster's {@code spec.resources}) requests the
     * memory it is limited to: under node memory pressure the kubelet evicts the pods using more than they requested
     * first; an evicted service loses the work it had in flight, an evicted primary fails over.
     */
    static List<String> memoryRequestsEqualLimits(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                if (RunJava.serviceOf(c).isEmpty()) {
                    continue;
                }
                String req = c.path("resources").path("requests").path("memory").asText("");
                String lim = c.path("resources").path("limits").path("memory").asText("");
                if (!req.isEmpty() && !lim.isEmpty() && bytes(req) != bytes(lim)) {
                    out.add(Manifest.id(w) + " container " + c.path("name").asText() + ": memory request " + req + " < limit " + lim
                            + ": above its request it is among the first pods evicted under node memory pressure");
                }
            }
        }
        for (JsonNode c : m.ofKind("Cluster")) {
            String req = c.path("spec").path("resources").path("requests").path("memory").asText("");
            String lim = c.path("spec").path("resources").path("limits").path("memory").asText("");
            if (!req.isEmpty() && !lim.isEmpty() && bytes(req) != bytes(lim)) {
                out.add(Manifest.id(c) + ": PostgreSQL's memory request " + req + " < limit " + lim
                        + ": above its request an instance is among the first pods evicted under node memory pressure");
            }
        }
        return out;
    }

    /**
     * For each CNPG Cluster, PostgreSQL's memory at full use fits the instance's memory limit:
     * {@code shared_buffers} + {@code max_connections} × ({@code work_mem} + {@link #BACKEND_OVERHEAD_BYTES}) +
     * {@code autovacuum_max_workers} × {@code maintenance_work_mem} (or {@code autovacuum_work_mem} when set) ≤
     * {@link #MEMORY_SHARE} × the limit. The memory parameters must be explicit ({@code shared_buffers},
     * {@code work_mem}, {@code maintenance_work_mem}, {@code max_connections}), so the budget does not rest on
     * defaults an operator or image release may change, and the instance must have a memory limit. Beyond the limit
     * the kernel kills a backend, and PostgreSQL restarts every connection of the instance (a failover if it is the
     * primary).
     */
    static List<String> postgresMemoryFitsItsConnections(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : m.ofKind("Cluster")) {
            JsonNode params = c.path("spec").path("postgresql").path("parameters");
            String limit = c.path("spec").path("resources").path("limits").path("memory").asText("");
            List<String> missing = new ArrayList<>();
            for (String p : List.of("max_connections", "shared_buffers", "work_mem", "maintenance_work_mem")) {
                if (!params.hasNonNull(p)) {
                    missing.add(p);
                }
            }
            if (limit.isEmpty()) {
                missing.add("resources.limits.memory");
            }
            if (!missing.isEmpty()) {
                out.add(Manifest.id(c) + ": PostgreSQL's memory cannot be budgeted: it sets no " + String.join(", ", missing)
                        + " (spec.postgresql.parameters, spec.resources)");
                continue;
            }
            int connections = Integer.parseInt(params.path("max_connections").asText().strip());
            long shared = pgBytes(params.path("shared_buffers").asText(), 8L << 10);
            long work = pgBytes(params.path("work_mem").asText(), 1L << 10);
            long maintenance = pgBytes(params.path("maintenance_work_mem").asText(), 1L << 10);
            String autovacuumMem = params.path("autovacuum_work_mem").asText("-1").strip();
            long perWorker = autovacuumMem.equals("-1") ? maintenance : pgBytes(autovacuumMem, 1L << 10);
            int workers = Integer.parseInt(params.path("autovacuum_max_workers").asText(String.valueOf(PG_DEFAULT_AUTOVACUUM_WORKERS)).strip());
            long need = shared + connections * (work + BACKEND_OVERHEAD_BYTES) + workers * perWorker;
            long allowed = (long) (bytes(limit) * MEMORY_SHARE);
            if (need > allowed) {
                out.add(Manifest.id(c) + ": PostgreSQL may use " + mib(need) + " MiB (shared_buffers " + mib(shared) + " MiB + max_connections "
                        + connections + " × (work_mem " + mib(work) + " MiB + " + mib(BACKEND_OVERHEAD_BYTES) + " MiB per backend) + " + workers
                        + " autovacuum workers × " + mib(perWorker) + " MiB) but " + Math.round(MEMORY_SHARE * 100) + " % of its memory limit "
                        + limit + " is " + mib(allowed) + " MiB");
            }
        }
        return out;
    }

    /**
     * A PostgreSQL memory setting in bytes: units {@code B}, {@code kB}, {@code MB}, {@code GB}, {@code TB} (powers of
     * 1024, as postgresql.conf reads them); a bare number is in the parameter's own unit ({@code shared_buffers}: 8 kB
     * blocks; the {@code *_mem} settings: kB).
     */
    static long pgBytes(String value, long bareUnit) {
        var q = Pattern.compile("(\\d+)\\s*(B|kB|MB|GB|TB)?").matcher(value.strip());
        if (!q.matches()) {
            throw new IllegalArgumentException("PostgreSQL memory setting " + value);
        }
        long n = Long.parseLong(q.group(1));
        return n * switch (q.group(2) == null ? "" : q.group(2)) {
            case "B" -> 1L;
            case "kB" -> 1L << 10;
            case "MB" -> 1L << 20;
            case "GB" -> 1L << 30;
            case "TB" -> 1L << 40;
            default -> bareUnit;
        };
    }

    private static long mib(long bytes) {
        return bytes >> 20;
    }

    /**
     * What each service's JVM committed besides its heap (metaspace, code cache, thread stacks, GC structures, malloc
     * arenas, direct buffers), MiB, as native memory tracking reported it under load with the pods' JVM options:
     * {@code docs/benchmarks/service-memory.md} has the runs and their commands. The scheduler does little (one query
     * a minute) and has no run of its own: the lead's figure, the larger of a bigger application, bounds it.
     */
    static final Map<String, Long> MEASURED_BEYOND_HEAP_MIB = Map.of(
            "lead-service", 182L,
            "teammate-service", 161L,
            "tool-runner-service", 134L,
            "scheduler-service", 182L);
    /** Room above the measured figure: another JDK build (the image's 21 against the 25 measured), more threads under load. */
    static final double BEYOND_HEAP_ROOM = 1.25;
    /**
     * What the tool runner's pod must keep free for the commands it runs in the same container (a build, a test run),
     * besides the runner's own JVM.
     */
    static final long TOOL_RUNNER_COMMANDS_MIB = 512;

    /**
     * Every Cohort container's JVM fits its memory limit with room: maximum heap ({@code -Xmx}, else run-java.sh's
     * {@code MaxRAMPercentage} of the limit) + {@link #MEASURED_BEYOND_HEAP_MIB} × {@link #BEYOND_HEAP_ROOM} (+
     * {@link #TOOL_RUNNER_COMMANDS_MIB} for the tool runner) ≤ the limit. Beyond the limit the kernel kills the JVM
     * (OOMKilled) with whatever work it had in flight, and the heap alone never shows it coming.
     */
    static List<String> jvmFitsItsMemoryLimit(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                Optional<String> service = RunJava.serviceOf(c);
                if (service.isEmpty()) {
                    continue;
                }
                String where = Manifest.id(w) + " container " + c.path("name").asText();
                String lim = c.path("resources").path("limits").path("memory").asText("");
                if (lim.isEmpty()) {
                    out.add(where + ": no memory limit, so nothing bounds its JVM");
                    continue;
                }
                long limitMib = mib(bytes(lim));
                List<String> opts = RunJava.options(RunJava.containerEnv(m, c, v -> Optional.of("secret")));
                long heapMib = maxHeapMib(opts, limitMib);
                long beyond = Math.round(MEASURED_BEYOND_HEAP_MIB.getOrDefault(service.get(), 182L) * BEYOND_HEAP_ROOM);
                long commands = service.get().equals("tool-runner-service") ? TOOL_RUNNER_COMMANDS_MIB : 0;
                long need = heapMib + beyond + commands;
                if (need > limitMib) {
                    out.add(where + ": the JVM may use " + need + " MiB (heap " + heapMib + " + " + beyond + " beyond the heap"
                            + (commands > 0 ? " + " + commands + " for the commands it runs" : "") + ") but its memory limit " + lim
                            + " is " + limitMib + " MiB");
                }
            }
        }
        return out;
    }

    /** The heap's maximum for these JVM options: the last {@code -Xmx}, else {@code MaxRAMPercentage} (default 25) of the limit. */
    static long maxHeapMib(List<String> opts, long limitMib) {
        Long xmx = null;
        double percent = 25.0;
        for (String o : opts) {
            if (o.startsWith("-Xmx")) {
                xmx = mib(jvmBytes(o.substring(4)));
            } else if (o.startsWith("-XX:MaxRAMPercentage=")) {
                percent = Double.parseDouble(o.substring("-XX:MaxRAMPercentage=".length()));
            }
        }
        return xmx != null ? xmx : Math.round(limitMib * percent / 100);
    }

    /** A JVM size ({@code 640m}, {@code 1g}, {@code 524288k}, bytes) in bytes. */
    static long jvmBytes(String size) {
        String s = size.strip().toLowerCase(Locale.ROOT);
        char unit = s.charAt(s.length() - 1);
        long n = Character.isDigit(unit) ? Long.parseLong(s) : Long.parseLong(s.substring(0, s.length() - 1));
        return n * switch (unit) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1L;
        };
    }

    /** A memory quantity in bytes (binary and decimal suffixes). */
    static long bytes(String quantity) {
        var q = Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti|k|K|M|G|T)?").matcher(quantity.strip());
        if (!q.matches()) {
            throw new IllegalArgumentException("memory quantity " + quantity);
        }
        long n = Long.parseLong(q.group(1));
        return n * switch (q.group(2) == null ? "" : q.group(2)) {
            case "Ki" -> 1L << 10;
            case "Mi" -> 1L << 20;
            case "Gi" -> 1L << 30;
            case "Ti" -> 1L << 40;
            case "k", "K" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            case "T" -> 1_000_000_000_000L;
            default -> 1L;
        };
    }

    private static boolean usesSecret(JsonNode w, String secret) {
        for (JsonNode c : Manifest.containers(w)) {
            for (JsonNode e : c.path("env")) {
                if (e.path("valueFrom").path("secretKeyRef").path("name").asText().equals(secret)) {
                    return true;
                }
            }
        }
        return false;
    }
}
