package dev.cohort.scheduler.support;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.quarkus.DevstackTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;

/**
 * The one set of test resources of this module — real Kafka and PostgreSQL from the devstack, and a small HTTP server
 * playing lead-service — applied to every {@code @QuarkusTest}, so Quarkus boots once for all of them.
 */
@QuarkusTestResource(value = DevstackTestResource.class, initArgs = @ResourceArg(name = "topics", value = Topics.ALL_CSV))
@QuarkusTestResource(LeadServiceStub.class)
public final class SchedulerTestResources {
    private SchedulerTestResources() {
    }
}
