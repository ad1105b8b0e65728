package dev.cohort.lead.crons;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.cron.CronTools;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import dev.cohort.lead.config.LeadConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The lead's cron tools ({@code schedule_cron}, {@code list_crons}, {@code cancel_cron}) on scheduler-service; whether
 * a job the model schedules asks a person is {@code cohort.lead.model-cron-jobs}.
 */
@ApplicationScoped
public class CronToolProvider extends RoleTools {

    @Inject
    LeadConfig config;

    CronToolProvider() {
        super(30, AgentRole.LEAD);
    }

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    @Override
    public List<Tool> tools() {
        return CronTools.all(new SchedulerClient(URI.create(config.schedulerUrl()), apiToken.filter(s -> !s.isBlank()),
                Duration.ofSeconds(30)), config.modelCronJobs());
    }
}
