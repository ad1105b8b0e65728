package dev.cohort.scheduler;

import dev.cohort.scheduler.client.LeadServiceTeamDirectory;
import dev.cohort.scheduler.config.SchedulerConfig;
import dev.cohort.scheduler.jobs.CronJobRepository;
import dev.cohort.scheduler.jobs.CronJobService;
import dev.cohort.scheduler.jobs.TeamDirectory;
import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.DefaultBean;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.URI;
import java.time.InstantSource;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Wires the plain service classes (kept free of CDI so tests can build several of them) into the application. */
@ApplicationScoped
public class SchedulerBeans {

    /** The clock every decision reads; tests replace it with a settable one. */
    @Produces
    @DefaultBean
    @Singleton
    InstantSource clock() {
        return InstantSource.system();
    }

    /** This replica's id: configured, or host name plus a random suffix (unique even for replicas on one host). */
    @Produces
    @Singleton
    @Named("schedulerInstanceId")
    String instanceId(SchedulerConfig config) {
        return config.instanceId().orElseGet(() -> {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "scheduler";
            }
            return host + "-" + UUID.randomUUID().toString().substring(0, 8);
        });
    }

    @Produces
    @Singleton
    CronJobRepository repository(AgroalDataSource dataSource) {
        return new CronJobRepository(dataSource);
    }

    /** lead-service when {@code validate-teams}, else only the id format (checked by the service) is enforced. */
    @Produces
    @DefaultBean
    @Singleton
    TeamDirectory teamDirectory(SchedulerConfig config, InstantSource clock,
            @ConfigProperty(name = "cohort.lead.url", defaultValue = "http://127.0.0.1:8080") URI leadUrl,
            @ConfigProperty(name = "cohort.api.token") Optional<String> apiToken) {
        if (!config.validateTeams()) {
            Log.info("cron team validation off (cohort.scheduler.validate-teams=false): any well-formed team id is accepted");
            return team -> true;
        }
        return new LeadServiceTeamDirectory(leadUrl, apiToken, config.teamLookupTimeout(), config.teamCacheTtl(), clock);
    }

    @Produces
    @Singleton
    CronJobService cronJobService(CronJobRepository repository, TeamDirectory teams, InstantSource clock,
            SchedulerConfig config, @Named("schedulerInstanceId") String instanceId) {
        return new CronJobService(repository, teams, clock, config, instanceId);
    }
}
