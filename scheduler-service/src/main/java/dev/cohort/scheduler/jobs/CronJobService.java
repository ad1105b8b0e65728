package dev.cohort.scheduler.jobs;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.cron.CronLimits;
import dev.cohort.scheduler.config.SchedulerConfig;
import dev.cohort.scheduler.jobs.CronRequestException.Kind;
import io.quarkus.logging.Log;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Creates, lists and cancels jobs; every rule a request can break is checked here and named in the refusal.
 *
 * <p>A create or cancel may carry an idempotency key (HTTP {@code Idempotency-Key}). The first successful request with
 * a key stores its answer in the same transaction as its effect; a later request with that key gets the stored answer
 * and changes nothing (even if the job has fired or been cancelled since), and one with the key but a different
 * request (body, job id or method) is refused ({@link Kind#IDEMPOTENCY_KEY_REUSED}). A refused request stores nothing.
 */
public class CronJobService {

    /** Firings simulated to find the shortest interval of an expression: covers any hour/minute pattern. */
    private static final int INTERVAL_PROBE_FIRINGS = 1_500;
    private static final String ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    /** 36^12 ids: collisions are practically impossible, and the primary key would refuse one anyway. */
    private static final int ID_LENGTH = 12;
    private static final int MAX_CREATED_BY = 128;
    /** An idempotency key: 1-255 visible ASCII characters (a UUID, as the lead's tools send, fits many times over). */
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7e]{1,255}");

    private final CronJobRepository repository;
    private final TeamDirectory teams;
    private final InstantSource clock;
    private final SchedulerConfig config;
    private final String instanceId;
    private final SecureRandom random = new SecureRandom();

    public CronJobService(CronJobRepository repository, TeamDirectory teams, InstantSource clock, SchedulerConfig config,
            String instanceId) {
        this.repository = repository;
        this.teams = teams;
        this.clock = clock;
        this.config = config;
        this.instanceId = instanceId;
    }

    /** The replica that owns the non-durable jobs created here. */
    public String instanceId() {
        return instanceId;
    }

    /** A created job, and whether it is the stored answer to an earlier request with the same idempotency key. */
    public record Created(CronJob job, boolean replayed) {
    }

    /** Validates and stores a job; throws {@link CronRequestException} naming the first problem. */
    public CronJob create(String team, CronJobRequest req) {
        return create(team, req, null).job();
    }

    /**
     * {@link #create(String, CronJobRequest)} with an idempotency key ({@code null}: none). A repeat of the key is
     * answered with the job the first request created, before any validation (it was valid then).
     */
    public Created create(String team, CronJobRequest req, String idempotencyKey) {
        requireTeamId(team);
        String digest = null;
        if (idempotencyKey != null) {
            requireKey(idempotencyKey);
            digest = digest("POST", null, req);
            Optional<Created> replay = replayCreate(team, idempotencyKey, digest);
            if (replay.isPresent()) {
                return replay.get();
            }
        }
        if (req == null) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "body is required: {\"cron\": \"…\", \"prompt\": \"…\"}");
        }
        if (req.cron() == null) {
            throw new CronRequestException(Kind.INVALID_CRON, "cron is required (5 fields: minute hour day-of-month month day-of-week)");
        }
        CronExpression cron;
        try {
            cron = CronExpression.parse(req.cron());
        } catch (InvalidCronException e) {
            throw new CronRequestException(Kind.INVALID_CRON, e.getMessage());
        }
        if (req.prompt() == null || req.prompt().isBlank()) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "prompt is required: the message the target receives when the job fires");
        }
        if (req.prompt().length() > config.maxPromptLength()) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "prompt has " + req.prompt().length()
                    + " characters; the limit is " + config.maxPromptLength() + " (cohort.scheduler.max-prompt-length)");
        }
        String target = req.target() == null || req.target().isBlank() ? Ids.LEAD : req.target().strip();
        if (!Ids.isAgent(target)) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "target: '" + target
                    + "' is neither 'lead' nor a teammate name matching " + Ids.AGENT.pattern());
        }
        String timezone = req.timezone() == null || req.timezone().isBlank() ? "UTC" : req.timezone().strip();
        ZoneId zone;
        try {
            zone = ZoneId.of(timezone);
        } catch (DateTimeException e) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "timezone: '" + timezone
                    + "' is not a time-zone id (e.g. UTC, Europe/Berlin, America/New_York)");
        }
        MissedPolicy missed;
        try {
            missed = req.missedPolicy() == null ? MissedPolicy.SKIP : MissedPolicy.of(req.missedPolicy());
        } catch (IllegalArgumentException e) {
            throw new CronRequestException(Kind.INVALID_REQUEST, e.getMessage());
        }
        String createdBy = req.createdBy() == null || req.createdBy().isBlank() ? "api" : req.createdBy().strip();
        if (createdBy.length() > MAX_CREATED_BY) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "createdBy is longer than " + MAX_CREATED_BY + " characters");
        }
        boolean recurring = req.recurring() == null || req.recurring();
        boolean durable = req.durable() == null || req.durable();

        Instant now = clock.instant();
        Optional<Instant> next = cron.nextFire(now, zone);
        if (next.isEmpty()) {
            throw new CronRequestException(Kind.INVALID_CRON, "cron '" + cron + "' never fires (no matching date in the next 50 years)");
        }
        JobLimits limits = JobLimits.of(config);
        boolean model = JobLimits.modelCreated(createdBy);
        if (recurring) {
            Duration min = limits.minIntervalFor(model);
            Optional<Duration> gap = cron.shortestGap(LocalDateTime.ofInstant(now, ZoneOffset.UTC), INTERVAL_PROBE_FIRINGS,
                    min);
            Optional<String> refusal = gap.flatMap(g -> limits.intervalRefusal(cron.toString(), g, model));
            if (refusal.isPresent()) {
                throw new CronRequestException(Kind.INVALID_CRON, refusal.get());
            }
        }
        checkTeamExists(team);

        CronJob job = new CronJob(newId(), team, target, cron.expression(), req.prompt(), recurring, durable, zone.getId(),
                missed, createdBy, now, durable ? null : instanceId, next.get(), null, 0);
        CronJobRepository.Outcome outcome = repository.insertWithinLimits(job, limits, model, idempotencyKey,
                idempotencyKey == null ? null : new IdempotentAnswer(digest, 201, job));
        switch (outcome) {
            case LIMIT_REACHED -> throw new CronRequestException(Kind.LIMIT_EXCEEDED,
                    limits.countRefusal(team, JobLimits.Count.TEAM_LIMIT));
            case MODEL_LIMIT_REACHED -> throw new CronRequestException(Kind.LIMIT_EXCEEDED,
                    limits.countRefusal(team, JobLimits.Count.MODEL_LIMIT));
            case KEY_TAKEN -> {
                // a concurrent request with the same key committed first: its answer is this request's answer
                String d = digest;
                return replayCreate(team, idempotencyKey, d).orElseThrow(() -> new IllegalStateException(
                        "idempotency key of team " + team + " taken but not stored"));
            }
            default -> {
            }
        }
        Log.infof("cron scheduled team=%s job=%s cron='%s' target=%s recurring=%s durable=%s timezone=%s next=%s"
                + " createdBy=%s", team, job.id(), job.cron(), target, recurring, durable, job.timezone(), job.nextFireAt(),
                createdBy);
        return new Created(job, false);
    }

    private Optional<Created> replayCreate(String team, String key, String digest) {
        return repository.findAnswer(team, key).map(a -> {
            if (a.job() == null || !a.requestDigest().equals(digest)) {
                throw reused(key, a.job() == null ? "a cancel" : "another create");
            }
            Log.debugf("cron create replayed team=%s job=%s", team, a.job().id());
            return new Created(a.job(), true);
        });
    }

    /** The limits in force for {@code team} and its current counts ({@code GET …/crons/limits}). */
    public CronLimits limits(String team) {
        requireTeamId(team);
        JobLimits l = JobLimits.of(config);
        CronJobRepository.Counts counts = repository.counts(team);
        return new CronLimits(team, l.maxJobsPerTeam(), l.minInterval().toSeconds(), l.maxModelJobsPerTeam(),
                l.minIntervalFor(true).toSeconds(), counts.jobs(), counts.modelJobs());
    }

    /** The team's jobs, oldest first. */
    public List<CronJob> list(String team) {
        requireTeamId(team);
        return repository.listByTeam(team);
    }

    /** One job, or {@link Kind#NOT_FOUND}. */
    public CronJob get(String team, String id) {
        requireTeamId(team);
        return repository.find(team, id).orElseThrow(() -> notFound(team, id));
    }

    /** Cancels a job: no firing starts after this returns. */
    public void cancel(String team, String id) {
        cancel(team, id, null);
    }

    /**
     * {@link #cancel(String, String)} with an idempotency key ({@code null}: none): a repeat of the key is answered
     * "cancelled" again, not {@link Kind#NOT_FOUND}. A cancel of a missing job stores nothing.
     *
     * @return true when this is the stored answer to an earlier request with the key
     */
    public boolean cancel(String team, String id, String idempotencyKey) {
        requireTeamId(team);
        if (idempotencyKey == null) {
            if (!repository.delete(team, id)) {
                throw notFound(team, id);
            }
            Log.infof("cron cancelled team=%s job=%s", team, id);
            return false;
        }
        requireKey(idempotencyKey);
        String digest = digest("DELETE", id, null);
        if (replayCancel(team, idempotencyKey, digest)) {
            return true;
        }
        switch (repository.delete(team, id, idempotencyKey, new IdempotentAnswer(digest, 204, null), clock.instant())) {
            case NOT_FOUND -> throw notFound(team, id);
            case KEY_TAKEN -> {
                if (!replayCancel(team, idempotencyKey, digest)) {
                    throw new IllegalStateException("idempotency key of team " + team + " taken but not stored");
                }
                return true;
            }
            default -> {
                Log.infof("cron cancelled team=%s job=%s", team, id);
                return false;
            }
        }
    }

    private boolean replayCancel(String team, String key, String digest) {
        Optional<IdempotentAnswer> a = repository.findAnswer(team, key);
        if (a.isEmpty()) {
            return false;
        }
        if (a.get().job() != null || !a.get().requestDigest().equals(digest)) {
            throw reused(key, a.get().job() != null ? "a create" : "a cancel of another job");
        }
        Log.debugf("cron cancel replayed team=%s", team);
        return true;
    }

    /**
     * SHA-256 (hex) of what a keyed request asks: the method, the job id (cancel) and the body as the service read it
     * (create), so a retry that sends the same fields matches whatever their order or spacing on the wire.
     */
    static String digest(String method, String jobId, CronJobRequest body) {
        String canonical = method + "\n" + (jobId == null ? "" : jobId) + "\n" + (body == null ? "" : Json.write(body));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static void requireKey(String key) {
        if (!IDEMPOTENCY_KEY.matcher(key).matches()) {
            throw new CronRequestException(Kind.INVALID_REQUEST,
                    "Idempotency-Key must be 1-255 visible ASCII characters, e.g. a UUID");
        }
    }

    private static CronRequestException reused(String key, String firstWas) {
        return new CronRequestException(Kind.IDEMPOTENCY_KEY_REUSED, "Idempotency-Key '" + key + "' was already used for "
                + "a different request (" + firstWas + "); a retry must repeat its request exactly, a new request needs "
                + "a new key");
    }

    private static CronRequestException notFound(String team, String id) {
        return new CronRequestException(Kind.NOT_FOUND, "team '" + team + "' has no cron job '" + id + "'");
    }

    private static void requireTeamId(String team) {
        if (!Ids.isTeam(team)) {
            throw new CronRequestException(Kind.INVALID_REQUEST, "team: '" + team + "' is not a team id (must match "
                    + Ids.TEAM.pattern() + ")");
        }
    }

    private void checkTeamExists(String team) {
        boolean exists;
        try {
            exists = teams.exists(team);
        } catch (TeamDirectory.TeamLookupException e) {
            throw new CronRequestException(Kind.TEAM_LOOKUP_UNAVAILABLE, "cannot check that team '" + team
                    + "' exists: " + e.getMessage());
        }
        if (!exists) {
            throw new CronRequestException(Kind.UNKNOWN_TEAM, "team '" + team + "' does not exist (create it on lead-service first)");
        }
    }

    private String newId() {
        StringBuilder sb = new StringBuilder("cron_");
        for (int i = 0; i < ID_LENGTH; i++) {
            sb.append(ID_ALPHABET.charAt(random.nextInt(ID_ALPHABET.length())));
        }
        return sb.toString();
    }

    /** "1 minute", "5 minutes", "2 hours", "1 day", "90 seconds". */
    static String human(Duration d) {
        long s = d.toSeconds();
        if (s % 86_400 == 0 && s > 0) {
            return plural(s / 86_400, "day");
        }
        if (s % 3_600 == 0 && s > 0) {
            return plural(s / 3_600, "hour");
        }
        if (s % 60 == 0 && s > 0) {
            return plural(s / 60, "minute");
        }
        return plural(s, "second");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }
}
