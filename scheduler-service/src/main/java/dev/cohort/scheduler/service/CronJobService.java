package dev.cohort.scheduler.service;

import dev.cohort.core.protocol.Ids;
import dev.cohort.scheduler.config.SchedulerConfig;
import dev.cohort.scheduler.persistence.CronJobRepository;
import dev.cohort.scheduler.service.CronRequestException.Kind;
import io.quarkus.logging.Log;
import java.security.SecureRandom;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/** Creates, lists and cancels jobs; every rule a request can break is checked here and named in the refusal. */
public class CronJobService {

    /** Firings simulated to find the shortest interval of an expression: covers any hour/minute pattern. */
    private static final int INTERVAL_PROBE_FIRINGS = 1_500;
    private static final String ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    /** 36^12 ids: collisions are practically impossible, and the primary key would refuse one anyway (gap 37). */
    private static final int ID_LENGTH = 12;
    private static final int MAX_CREATED_BY = 128;

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

    /** Validates and stores a job; throws {@link CronRequestException} naming the first problem. */
    public CronJob create(String team, CronJobRequest req) {
        requireTeamId(team);
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
        if (recurring) {
            Optional<Duration> gap = cron.shortestGap(LocalDateTime.ofInstant(now, ZoneOffset.UTC), INTERVAL_PROBE_FIRINGS,
                    config.minInterval());
            if (gap.isPresent() && gap.get().compareTo(config.minInterval()) < 0) {
                throw new CronRequestException(Kind.INVALID_CRON, "cron '" + cron + "' fires every " + human(gap.get())
                        + "; the minimum interval is " + human(config.minInterval()) + " (cohort.scheduler.min-interval)");
            }
        }
        checkTeamExists(team);

        CronJob job = new CronJob(newId(), team, target, cron.expression(), req.prompt(), recurring, durable, zone.getId(),
                missed, createdBy, now, durable ? null : instanceId, next.get(), null, 0);
        if (!repository.insertWithinLimit(job, config.maxJobsPerTeam())) {
            throw new CronRequestException(Kind.LIMIT_EXCEEDED, "team '" + team + "' already has " + config.maxJobsPerTeam()
                    + " cron jobs, the limit (cohort.scheduler.max-jobs-per-team); cancel one first");
        }
        Log.infof("cron scheduled team=%s job=%s cron='%s' target=%s recurring=%s durable=%s timezone=%s next=%s", team,
                job.id(), job.cron(), target, recurring, durable, job.timezone(), job.nextFireAt());
        return job;
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
        requireTeamId(team);
        if (!repository.delete(team, id)) {
            throw notFound(team, id);
        }
        Log.infof("cron cancelled team=%s job=%s", team, id);
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
