package dev.cohort.lead;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.quarkus.DevstackTestResource;
import dev.cohort.devstack.quarkus.ToolRunnerTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;

/**
 * The one set of test resources of this module (real Kafka, PostgreSQL, scripted model), applied to every
 * {@code @QuarkusTest} so Quarkus boots once for all of them.
 */
@QuarkusTestResource(value = DevstackTestResource.class, initArgs = @ResourceArg(name = "topics", value = Topics.ALL_CSV))
@QuarkusTestResource(value = ToolRunnerTestResource.class, initArgs = {
        @ResourceArg(name = "prefix", value = "cohort.lead"), @ResourceArg(name = "topics", value = Topics.ALL_CSV)})
public final class DevstackResources {
    private DevstackResources() {
    }
}
