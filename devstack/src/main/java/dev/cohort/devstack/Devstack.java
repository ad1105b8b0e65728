package dev.cohort.devstack;

import dev.cohort.devstack.kafka.EmbeddedKafka;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.pg.LocalPostgres;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The whole local infrastructure in one object: a KRaft broker, PostgreSQL (or an existing server when
 * {@code COHORT_DB_URL} is set) and the scripted model server. Used by {@code cohort up} and the test resources.
 */
public final class Devstack implements AutoCloseable {

    private final EmbeddedKafka kafka;
    private final LocalPostgres postgres;
    private final ScriptedModelServer model;
    private final String jdbcUrl;
    private final String dbUser;
    private final String dbPassword;

    private Devstack(EmbeddedKafka kafka, LocalPostgres postgres, ScriptedModelServer model, String jdbcUrl, String dbUser,
            String dbPassword) {
        this.kafka = kafka;
        this.postgres = postgres;
        this.model = model;
        this.jdbcUrl = jdbcUrl;
        this.dbUser = dbUser;
        this.dbPassword = dbPassword;
    }

    /**
     * Starts everything; on a failure the parts already started are stopped again.
     *
     * @param kafkaPort 0 for a free port
     * @param pgPort 0 for a free port; ignored when {@code COHORT_DB_URL} is set
     * @param modelPort 0 for a free port, -1 for no scripted model
     */
    public static Devstack start(int kafkaPort, Collection<String> topics, int partitions, int pgPort, int modelPort) {
        EmbeddedKafka kafka = null;
        LocalPostgres pg = null;
        ScriptedModelServer model = null;
        try {
            kafka = EmbeddedKafka.start(kafkaPort, topics, partitions);
            String url = env("COHORT_DB_URL");
            String user;
            String password;
            if (url != null) {
                user = orDefault(env("COHORT_DB_USER"), "postgres");
                password = orDefault(env("COHORT_DB_PASSWORD"), "postgres");
            } else {
                pg = LocalPostgres.start(pgPort);
                url = pg.jdbcUrl();
                user = pg.username();
                password = pg.password();
            }
            if (modelPort >= 0) {
                model = ScriptedModelServer.start(modelPort);
            }
            return new Devstack(kafka, pg, model, url, user, password);
        } catch (RuntimeException e) {
            if (model != null) {
                model.close();
            }
            if (pg != null) {
                pg.close();
            }
            if (kafka != null) {
                kafka.close();
            }
            throw e;
        }
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** The embedded server, or null when an external one ({@code COHORT_DB_URL}) is used. */
    public LocalPostgres postgres() {
        return postgres;
    }

    /** The scripted model server, or null when none was started. */
    public ScriptedModelServer model() {
        return model;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String dbUser() {
        return dbUser;
    }

    public String dbPassword() {
        return dbPassword;
    }

    /**
     * The environment a packaged service process needs to use this stack: {@code KAFKA_BOOTSTRAP_SERVERS},
     * {@code COHORT_DB_URL}, {@code COHORT_DB_USER}, {@code COHORT_DB_PASSWORD} (a mutable copy, in that order).
     */
    public Map<String, String> serviceEnvironment() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        m.put("COHORT_DB_URL", jdbcUrl);
        m.put("COHORT_DB_USER", dbUser);
        m.put("COHORT_DB_PASSWORD", dbPassword);
        return m;
    }

    /** Quarkus/service configuration pointing at this stack. */
    public Map<String, String> quarkusConfig() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        m.put("quarkus.datasource.jdbc.url", jdbcUrl);
        m.put("quarkus.datasource.username", dbUser);
        m.put("quarkus.datasource.password", dbPassword);
        if (model != null) {
            m.put("cohort.llm.base-url", model.baseUrl());
            m.put("cohort.llm.api-key", "sk-scripted");
            m.put("cohort.devstack.model-admin-url", model.adminUrl());
        }
        return m;
    }

    @Override
    public void close() {
        try {
            if (model != null) {
                model.close();
            }
        } finally {
            try {
                if (postgres != null) {
                    postgres.close();
                }
            } finally {
                kafka.close();
            }
        }
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v;
    }

    private static String orDefault(String v, String d) {
        return v == null ? d : v;
    }
}
