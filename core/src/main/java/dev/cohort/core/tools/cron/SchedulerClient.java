package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Client of scheduler-service's cron API ({@code /api/v1/teams/{team}/crons}), a {@link ServiceClient}. A refusal (4xx
 * problem+json) is a {@link Refused} carrying the scheduler's detail, for the model to read; no answer, or a failure
 * (5xx) after the retries, is an {@link Unavailable}. Reads and deletes are retried under the services' retry policy
 * ({@link ServiceClient}). A create or delete may carry an {@code Idempotency-Key} (the tools send the name-based UUID
 * of agent and call id, {@link dev.cohort.core.tools.EffectKey#uuid()}): the scheduler then answers a repeat with its
 * first answer, so a keyed create is retried like a read. An unkeyed create is sent again only when the connection was
 * refused (the request surely never arrived), so it is never duplicated.
 */
public class SchedulerClient implements AutoCloseable {

    /** The retries' budget: a scheduler restart of a few seconds is ridden out. */
    public static final ServiceClient.Retry RETRY = ServiceClient.Retry.within(Duration.ofSeconds(3));

    private final URI base;
    private final ServiceClient http;

    /**
     * @param base the scheduler's base URL, e.g. {@code http://127.0.0.1:8082}
     * @param token the API bearer token ({@code cohort.api.token}), if the scheduler requires one
     * @param timeout per request
     */
    public SchedulerClient(URI base, Optional<String> token, Duration timeout) {
        this(base, token, timeout, RETRY);
    }

    /** With another retry budget ({@code Retry.within(Duration.ZERO)}: one attempt, for a read shown to a person). */
    public SchedulerClient(URI base, Optional<String> token, Duration timeout, ServiceClient.Retry retry) {
        this.base = base;
        this.http = new ServiceClient("scheduler", List.of(base.toString()),
                token == null ? null : token.filter(t -> !t.isBlank()).orElse(null), timeout, retry);
    }

    /** The scheduler refused the request; {@code detail} says why (e.g. {@code day-of-week: 8 is outside 0-7}). */
    public static class Refused extends RuntimeException {
        private final int status;
        private final String type;

        public Refused(int status, String type, String detail) {
            super(detail);
            this.status = status;
            this.type = type;
        }

        public int status() {
            return status;
        }

        /** The problem type, e.g. {@code urn:cohort:problem:invalid-cron}; may be null. */
        public String type() {
            return type;
        }

        /** The last segment of the problem type ({@code invalid-cron}), or {@code http-<status>}. */
        public String slug() {
            if (type == null || type.isBlank()) {
                return "http-" + status;
            }
            int i = Math.max(type.lastIndexOf(':'), type.lastIndexOf('/'));
            return type.substring(i + 1);
        }
    }

    /** The scheduler could not be reached or failed (5xx) after retries. */
    public static class Unavailable extends RuntimeException {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The header that makes a create or delete idempotent on scheduler-service. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** {@code POST …/crons}: creates a job and returns it with its first {@code nextFireAt}. */
    public CronJobInfo schedule(String team, ScheduleCronArgs args) {
        return schedule(team, args, null);
    }

    /**
     * {@code POST …/crons} with an {@code Idempotency-Key} ({@code null}: none): a repeat with the same key gets the
     * job the first call created; the same key with another request is {@link Refused} (422
     * {@code idempotency-key-reused}).
     */
    public CronJobInfo schedule(String team, ScheduleCronArgs args, String idempotencyKey) {
        return send(ServiceClient.Request.post(crons(team), args, false).idempotencyKey(idempotencyKey))
                .read(CronJobInfo.class);
    }

    /** {@code GET …/crons}: the team's jobs, oldest first. */
    public List<CronJobInfo> list(String team) {
        String body = send(ServiceClient.Request.get(crons(team))).text();
        try {
            return Json.MAPPER.readValue(body, new TypeReference<List<CronJobInfo>>() {
            });
        } catch (IOException e) {
            throw new Unavailable("scheduler answered an unreadable job list: " + e.getMessage(), e);
        }
    }

    /** {@code GET …/crons/limits}: the limits in force for the team and its current counts. */
    public CronLimits limits(String team) {
        return send(ServiceClient.Request.get(crons(team) + "/limits")).read(CronLimits.class);
    }

    /** {@code DELETE …/crons/{id}}: true when cancelled, false when the team has no such job. */
    public boolean cancel(String team, String jobId) {
        return cancel(team, jobId, null);
    }

    /**
     * {@code DELETE …/crons/{id}} with an {@code Idempotency-Key} ({@code null}: none): a repeat with the same key is
     * answered "cancelled" as the first call was, not "no such job".
     */
    public boolean cancel(String team, String jobId, String idempotencyKey) {
        try {
            send(ServiceClient.Request.delete(crons(team) + "/" + ServiceClient.segment(jobId))
                    .idempotencyKey(idempotencyKey));
            return true;
        } catch (Refused r) {
            if (r.status() == 404) {
                return false;
            }
            throw r;
        }
    }

    private static String crons(String team) {
        return "api/v1/teams/" + ServiceClient.segment(team) + "/crons";
    }

    /** A 2xx answer; a 4xx is {@link Refused}, anything else (or no answer) {@link Unavailable}. */
    private ServiceClient.Answer send(ServiceClient.Request req) {
        ServiceClient.Answer a;
        try {
            a = http.send(req);
        } catch (ServiceClient.NoAnswer e) {
            throw new Unavailable("scheduler at " + base + " unavailable: " + e.getMessage(), e);
        }
        if (a.ok()) {
            return a;
        }
        ServiceClient.Problem p = a.problem();
        if (a.status() >= 400 && a.status() < 500) {
            throw new Refused(a.status(), p.type(), p.detail());
        }
        throw new Unavailable("scheduler at " + base + " unavailable: HTTP " + a.status() + ": " + p.detail(), null);
    }

    @Override
    public void close() {
        http.close();
    }
}
