package dev.cohort.devstack;

import dev.cohort.devstack.kafka.EmbeddedKafka;
import dev.cohort.devstack.kafka.KafkaCredentials;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.pg.LocalPostgres;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The whole local infrastructure in one object: a KRaft broker (SASL/SCRAM login, {@link #kafkaClientProperties()}), PostgreSQL (or an existing server when
 * {@code COHORT_DB_URL} is set) and the scripted model server. Used by {@code cohort up} and the test resources.
 */
public final class Devstack implements AutoCloseable {

    private final EmbeddedKafka kafka;
    private final LocalPostgres postgres;
    private final ScriptedModelServer model;
    private final String jdbcUrl;
    private final String dbUser;
    private final String dbPassword;
    private final String dbSuperuser;
    private final String dbSuperuserPassword;

    private Devstack(EmbeddedKafka kafka, LocalPostgres postgres, ScriptedModelServer model, String jdbcUrl, String dbUser,
            String dbPassword, String dbSuperuser, String dbSuperuserPassword) {
        this.kafka = kafka;
        this.postgres = postgres;
        this.model = model;
        this.jdbcUrl = jdbcUrl;
        this.dbUser = dbUser;
        this.dbPassword = dbPassword;
        this.dbSuperuser = dbSuperuser;
        this.dbSuperuserPassword = dbSuperuserPassword;
    }

    /**
     * Starts everything; on a failure the parts already started are stopped again.
     *
     * @param kafkaPort 0 for a free port
     * @param pgPort 0 for a free port; ignored when {@code COHORT_DB_URL} is set
     * @param modelPort 0 for a free port, -1 for no scripted model
     */
    public static Devstack start(int kafkaPort, Collection<String> topics, int partitions, int pgPort, int modelPort) {
        return start(kafkaPort, topics, partitions, pgPort, modelPort, KafkaCredentials.generate());
    }

    /**
     * As {@link #start(int, Collection, int, int, int)}, with the broker's client login chosen by the caller (for a
     * process that hands it out before the broker exists).
     */
    public static Devstack start(int kafkaPort, Collection<String> topics, int partitions, int pgPort, int modelPort,
            KafkaCredentials kafkaCredentials) {
        EmbeddedKafka kafka = null;
        LocalPostgres pg = null;
        ScriptedModelServer model = null;
        try {
            kafka = EmbeddedKafka.start(kafkaPort, topics, partitions, kafkaCredentials);
            String url = env("COHORT_DB_URL");
            String user;
            String password;
            String superuser;
            String superuserPassword;
            if (url != null) {
                // the user's own server, with the credentials the user gives (else the services' own defaults)
                user = orDefault(env("COHORT_DB_USER"), "postgres");
                password = orDefault(env("COHORT_DB_PASSWORD"), "postgres");
                superuser = user;
                superuserPassword = password;
            } else {
                // a password for every connection: the services get the application role, the superuser stays here
                pg = LocalPostgres.start(pgPort);
                url = pg.jdbcUrl();
                user = pg.username();
                password = pg.password();
                superuser = pg.superuser();
                superuserPassword = pg.superuserPassword();
            }
            if (modelPort >= 0) {
                model = ScriptedModelServer.start(modelPort);
            }
            return new Devstack(kafka, pg, model, url, user, password, superuser, superuserPassword);
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

    /**
     * {@code bootstrap.servers} and the SASL settings (user {@value KafkaCredentials#USER}, this start's password) a raw
     * producer, consumer or admin client of the broker needs: a mutable copy, to add serializers, a group id …
     */
    public Map<String, Object> kafkaClientProperties() {
        return kafka.clientProperties();
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /**
     * The role the services log in as: the local server's application role (no superuser, owner of the database); with
     * {@code COHORT_DB_URL}, the given one.
     */
    public String dbUser() {
        return dbUser;
    }

    /** Its password: drawn for the local server when it started, or the given one. */
    public String dbPassword() {
        return dbPassword;
    }

    /**
     * The local server's superuser, for a test or benchmark that changes server settings ({@code ALTER SYSTEM}) or reads
     * what only a superuser may; never given to a service. With {@code COHORT_DB_URL}, the given user.
     */
    public String dbSuperuser() {
        return dbSuperuser;
    }

    public String dbSuperuserPassword() {
        return dbSuperuserPassword;
    }

    /**
     * The environment a packaged service process needs to use this stack: {@code KAFKA_BOOTSTRAP_SERVERS},
     * {@code KAFKA_SECURITY_PROTOCOL}, {@code KAFKA_SASL_MECHANISM}, {@code KAFKA_SASL_JAAS_CONFIG} (Quarkus maps them
     * onto its global {@code kafka.*} keys, which every channel and raw client of a service uses), {@code COHORT_DB_URL},
     * {@code COHORT_DB_USER}, {@code COHORT_DB_PASSWORD} (a mutable copy, in that order); the database credentials are
     * the application role's ({@link #dbUser()}), never the superuser's.
     */
    public Map<String, String> serviceEnvironment() {
        Map<String, String> m = new LinkedHashMap<>(kafka.serviceEnvironment());
        m.put("COHORT_DB_URL", jdbcUrl);
        m.put("COHORT_DB_USER", dbUser);
        m.put("COHORT_DB_PASSWORD", dbPassword);
        return m;
    }

    /** Quarkus/service configuration pointing at this stack (the broker's: {@code kafka.bootstrap.servers} and SASL). */
    public Map<String, String> quarkusConfig() {
        Map<String, String> m = new LinkedHashMap<>(kafka.credentials().quarkusConfig(kafka.bootstrapServers()));
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
