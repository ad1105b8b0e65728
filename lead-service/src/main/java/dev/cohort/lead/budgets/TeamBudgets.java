package dev.cohort.lead.budgets;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.tools.cron.CronLimits;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.usage.UsageRepository;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The budgets a team's agents work under: the engine's {@code cohort.engine.budgets.*} defaults with the team's own
 * overrides ({@code PUT /api/v1/teams/{team}/budgets}) over them. The lead reads the overrides at every step, teammate
 * hosts over the internal API.
 * The day's usage ({@link #usageToday}) is read by the engine only while a per-day team budget is in force (by
 * default it is: {@link Budgets#DEFAULT_TOKENS_PER_TEAM_PER_DAY}). Beside the budgets, {@link #cronJobLimits} reports
 * what bounds the cron jobs the team's agents create: whether a person approves each ({@code
 * cohort.lead.model-cron-jobs}) and scheduler-service's caps, asked of the scheduler itself so they are the ones in
 * force.
 */
@ApplicationScoped
public class TeamBudgets {

    @Inject
    EngineAssembly assembly;

    private volatile Budgets defaults;

    @Inject
    BudgetRepository repository;

    @Inject
    UsageRepository usage;

    @Inject
    LeadConfig config;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    /** scheduler-service's base URL when a test sets one ({@link #useScheduler}); null: {@code cohort.lead.scheduler-url}. */
    private volatile URI schedulerUrl;

    /** Asks scheduler-service at {@code url} for its limits from now on ({@code null}: the configured one); for tests. */
    public void useScheduler(URI url) {
        schedulerUrl = url;
    }

    /** Where "today" comes from (UTC); a test sets another clock ({@link #useClock}). */
    private volatile Clock clock = Clock.systemUTC();

    /** Counts "today" by {@code c} from now on ({@code null}: the system's UTC clock again); for tests. */
    public void useClock(Clock c) {
        clock = c == null ? Clock.systemUTC() : c;
    }

    /** The configured defaults ({@code cohort.engine.budgets.*}, 0 = unlimited). */
    public Budgets defaults() {
        Budgets d = defaults;
        if (d == null) {
            // the settings the lead's engine is built with (cohort.engine.*, with the lead's aliases)
            d = assembly.settings().budgets();
            defaults = d;
        }
        return d;
    }

    /**
     * The team's overrides ({@link Budgets.Overrides#NONE} when none), from {@link BudgetRepository#cached}: read at
     * every step, so no query per step; another replica's change applies within {@code cohort.lead.budget-cache-ttl}.
     */
    public Budgets.Overrides overrides(String team) {
        return repository.cached(team);
    }

    /**
     * The team's usage in the current UTC day: every agent's model calls in the usage ledger ({@code lead.usage}) from
     * 00:00 UTC of {@link #clock}'s now. As fresh as the event log: a call counts once its {@code assistant_message}
     * is stored.
     */
    public Usage usageToday(String team) {
        return usage.teamUsageSince(team, Budgets.startOfUtcDay(clock.instant()));
    }

    /** {@link #usageToday} with the day it is of (the internal team API hands it to teammate hosts). */
    public Budgets.DayUsage dayUsage(String team) {
        Instant now = clock.instant();
        return new Budgets.DayUsage(LocalDate.ofInstant(now, ZoneOffset.UTC),
                usage.teamUsageSince(team, Budgets.startOfUtcDay(now)));
    }

    /** What the team's agents work under now. */
    public Budgets effective(String team) {
        return defaults().with(overrides(team));
    }

    /**
     * What bounds the cron jobs a team's agents create.
     *
     * @param approval             {@code ask} or {@code allow}: whether a person approves each job the model schedules
     *                             ({@code cohort.lead.model-cron-jobs})
     * @param scheduler            scheduler-service's limits and the team's counts; null when it could not be asked
     * @param schedulerUnavailable why it could not be asked; null when it answered
     */
    public record CronJobLimits(String approval, CronLimits scheduler, String schedulerUnavailable) {
    }

    /** {@link CronJobLimits} of {@code team}: one request to the scheduler, bounded by {@code scheduler-limits-timeout}. */
    public CronJobLimits cronJobLimits(String team) {
        String approval = config.modelCronJobs().name().toLowerCase(Locale.ROOT);
        URI url = schedulerUrl != null ? schedulerUrl : URI.create(config.schedulerUrl());
        // one attempt: it is shown to a person, for whom "did not answer" is a better answer than a wait
        try (SchedulerClient scheduler = new SchedulerClient(url, apiToken.filter(t -> !t.isBlank()),
                config.schedulerLimitsTimeout(), ServiceClient.Retry.within(Duration.ZERO))) {
            CronLimits limits = scheduler.limits(team);
            return new CronJobLimits(approval, limits, null);
        } catch (SchedulerClient.Refused | SchedulerClient.Unavailable e) {
            Log.debugf("team=%s cron limits not read from the scheduler: %s", team, e.getMessage());
            return new CronJobLimits(approval, null, "scheduler-service at " + url + " did not answer: " + e.getMessage());
        }
    }
}
