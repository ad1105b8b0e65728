package dev.cohort.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cohort.devstack.kafka.KafkaCredentials;
import dev.cohort.devstack.pg.LocalPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

/**
 * What the services get from {@code cohort up}'s stack ({@link Devstack#serviceEnvironment()},
 * {@link Devstack#quarkusConfig()}): the local PostgreSQL's application role and its password, drawn when the server
 * started, never a fixed {@code postgres}/{@code postgres} and never the superuser's; the server wants them. The
 * same for the broker: its SASL login, with the password drawn when it started.
 */
class DevstackCredentialsTest {

    @Test
    void theServicesGetTheApplicationRoleWithItsFreshPasswordAndTheServerWantsIt() throws Exception {
        assumeTrue(System.getenv("COHORT_DB_URL") == null || System.getenv("COHORT_DB_URL").isBlank(),
                "COHORT_DB_URL set: the stack uses that server, not its own");
        try (Devstack stack = Devstack.start(0, List.of(), 1, 0, -1)) {
            LocalPostgres pg = stack.postgres();
            Map<String, String> env = stack.serviceEnvironment();
            assertThat(env).containsEntry("COHORT_DB_URL", pg.jdbcUrl()).containsEntry("COHORT_DB_USER", LocalPostgres.USER)
                    .containsEntry("COHORT_DB_PASSWORD", pg.password());
            assertThat(stack.quarkusConfig()).containsEntry("quarkus.datasource.username", LocalPostgres.USER)
                    .containsEntry("quarkus.datasource.password", pg.password());
            assertThat(pg.password()).matches("[0-9a-f]{64}");
            // the superuser stays in this JVM
            assertThat(stack.dbSuperuser()).isEqualTo(LocalPostgres.SUPERUSER);
            assertThat(stack.dbSuperuserPassword()).isEqualTo(pg.superuserPassword()).isNotEqualTo(pg.password());
            assertThat(env.values()).doesNotContain(stack.dbSuperuserPassword(), stack.dbSuperuser());
            assertThat(stack.quarkusConfig().values()).doesNotContain(stack.dbSuperuserPassword(), stack.dbSuperuser());

            try (Connection c = DriverManager.getConnection(env.get("COHORT_DB_URL"), env.get("COHORT_DB_USER"),
                    env.get("COHORT_DB_PASSWORD")); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(1)).isFalse();
            }
            for (String user : List.of(stack.dbUser(), stack.dbSuperuser())) {
                assertThatThrownBy(() -> DriverManager.getConnection(stack.jdbcUrl() + "?user=" + user))
                        .isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> DriverManager.getConnection(stack.jdbcUrl(), user, "postgres"))
                        .isInstanceOf(SQLException.class);
            }
            DriverManager.getConnection(stack.jdbcUrl(), stack.dbSuperuser(), stack.dbSuperuserPassword()).close();
        }
    }

    @Test
    void theServicesGetTheBrokersLoginAndTheBrokerWantsIt() throws Exception {
        try (Devstack stack = Devstack.start(0, List.of(), 1, 0, -1)) {
            KafkaCredentials login = stack.kafka().credentials();
            String bootstrap = stack.kafka().bootstrapServers();
            assertThat(stack.serviceEnvironment()).containsEntry("KAFKA_BOOTSTRAP_SERVERS", bootstrap)
                    .containsEntry("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT").containsEntry("KAFKA_SASL_MECHANISM", "SCRAM-SHA-256")
                    .containsEntry("KAFKA_SASL_JAAS_CONFIG", login.jaasConfig());
            assertThat(stack.quarkusConfig()).containsEntry("kafka.bootstrap.servers", bootstrap)
                    .containsEntry("kafka.security.protocol", "SASL_PLAINTEXT").containsEntry("kafka.sasl.mechanism", "SCRAM-SHA-256")
                    .containsEntry("kafka.sasl.jaas.config", login.jaasConfig());
            assertThat(login.jaasConfig()).contains("username=\"cohort\"", "password=\"" + login.password() + "\"");
            try (Admin admin = Admin.create(stack.kafkaClientProperties())) {
                assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
            }
            Map<String, Object> wrong = KafkaCredentials.of(KafkaCredentials.USER, KafkaCredentials.newPassword()).clientProperties(bootstrap);
            try (Admin admin = Admin.create(wrong)) {
                assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
        }
    }
}
