package dev.cohort.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.devstack.kafka.RestartableKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

/** {@link KafkaReadinessCheck} against a real broker that is stopped and started again on the same port. */
class KafkaReadinessCheckTest {

    @Test
    void aProcessThatUsesNoKafkaMakesNoClientAndSaysSo() {
        KafkaReadinessCheck check = new KafkaReadinessCheck();
        check.enabled = false;
        // a broker address nothing listens on: an enabled check would be DOWN here
        check.kafkaConfig = Map.of("bootstrap.servers", "127.0.0.1:1");
        check.timeout = Duration.ofMillis(200);
        check.onStart(null);
        HealthCheckResponse response = check.call();
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(response.getData()).contains(Map.of("used", false));
        check.close();
    }

    @Test
    void theCheckIsDownWhileTheBrokerIsStoppedAndUpAgainOnceItIsBackWithTheSameClient() {
        try (RestartableKafka kafka = RestartableKafka.start(List.of("cohort.events"), 1)) {
            KafkaReadinessCheck check = new KafkaReadinessCheck();
            Map<String, Object> kafkaConfig = kafka.clientProperties();
            kafkaConfig.put("group.id", "not-an-admin-setting");
            check.kafkaConfig = kafkaConfig;
            check.timeout = Duration.ofSeconds(2);
            try {
                HealthCheckResponse up = check.call();
                assertThat(up.getName()).isEqualTo("Kafka broker connection");
                assertThat(up.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
                assertThat(up.getData()).contains(Map.of("brokers", 1L));

                kafka.stop();
                HealthCheckResponse down = await("DOWN with the broker stopped").atMost(Duration.ofSeconds(60))
                        .until(check::call, r -> r.getStatus() == HealthCheckResponse.Status.DOWN);
                assertThat(down.getData().orElseThrow()).containsKey("reason");

                kafka.restart();
                await("UP once the broker is back").atMost(Duration.ofSeconds(60))
                        .until(check::call, r -> r.getStatus() == HealthCheckResponse.Status.UP);
            } finally {
                check.close();
            }
        }
    }

    @Test
    void theCheckIsDownWhenTheServiceHasNoLoginForTheBroker() {
        try (RestartableKafka kafka = RestartableKafka.start(List.of("cohort.events"), 1)) {
            KafkaReadinessCheck check = new KafkaReadinessCheck();
            check.kafkaConfig = Map.of("bootstrap.servers", kafka.bootstrapServers());
            check.timeout = Duration.ofSeconds(2);
            try {
                HealthCheckResponse response = check.call();
                assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
                assertThat(response.getData().orElseThrow()).containsKey("reason");
            } finally {
                check.close();
            }
        }
    }

    @Test
    void theAdminClientGetsTheConnectionSettingsAndAClientIdNamingTheService() {
        Map<String, Object> config = KafkaReadinessCheck.adminConfig(Map.of("bootstrap.servers", "b:9092",
                "security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN", "ssl.truststore.location", "/t",
                "group.id", "cohort-lead", "value.deserializer", "x"), "cohort-lead-service");
        assertThat(config).isEqualTo(Map.of("bootstrap.servers", "b:9092", "security.protocol", "SASL_SSL",
                "sasl.mechanism", "PLAIN", "ssl.truststore.location", "/t", "client.id", "cohort-lead-service-health"));
    }
}
