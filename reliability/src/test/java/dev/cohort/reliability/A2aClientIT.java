package dev.cohort.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.reliability.RelStack.Service;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.config.ClientConfig;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.client.transport.jsonrpc.JSONRPCTransport;
import io.a2a.client.transport.jsonrpc.JSONRPCTransportConfigBuilder;
import io.a2a.client.transport.spi.interceptors.ClientCallContext;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.A2AError;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Message;
import io.a2a.spec.Task;
import io.a2a.spec.TaskIdParams;
import io.a2a.spec.TaskQueryParams;
import io.a2a.spec.TaskState;
import io.a2a.spec.TextPart;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every team is an A2A 1.0 agent, driven here by a client nobody here wrote: the A2A Java SDK's ({@code
 * io.github.a2asdk} 1.0.0.Alpha3, JSON-RPC transport), against the packaged services as real processes ({@link RelStack},
 * two lead-service replicas) and the scripted model. Each test has a team of its own: a task with a tool call; a
 * task that asks for an approval (input required → answered → completed); a cancel; a task whose lead replica is
 * SIGKILLed while its tool call runs, whose stream breaks with it and is resumed with {@code SubscribeToTask} on the
 * other replica, which answers it; and errors with the spec's codes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class A2aClientIT {

    private static final Duration LONG = Duration.ofMinutes(4);
    private RelStack st;

    @BeforeAll
    void start() {
        st = RelStack.start();
        st.appendRules(RelStack.MEMORY_RULE);
        st.ensureReplicas(Service.LEAD, 2);
    }

    @AfterAll
    void stop() {
        if (st != null) {
            st.close();
        }
    }

    // ---- the SDK's client, as a third party builds it

    private AgentCard card(String base, String team) throws Exception {
        return new A2ACardResolver(new JdkA2AHttpClient(), base, null, "/.well-known/agent-card.json?team=" + team)
                .getAgentCard();
    }

    private Client client(AgentCard card, boolean streaming, boolean polling, BiConsumer<ClientEvent, AgentCard> events,
            java.util.function.Consumer<Throwable> errors) throws Exception {
        return Client.builder(card)
                .clientConfig(new ClientConfig.Builder().setStreaming(streaming).setPolling(polling).build())
                .withTransport(JSONRPCTransport.class, new JSONRPCTransportConfigBuilder().httpClient(new JdkA2AHttpClient()))
                .addConsumer(events).streamingErrorHandler(errors).build();
    }

    private static ClientCallContext auth() {
        return new ClientCallContext(Map.of(), Map.of("Authorization", "Bearer " + RelStack.API_TOKEN,
                "A2A-Version", "1.0"));
    }

    private static Message user(String text, String taskId) {
        Message.Builder b = Message.builder().role(Message.Role.ROLE_USER).parts(new TextPart(text))
                .messageId(UUID.randomUUID().toString());
        if (taskId != null) {
            b.taskId(taskId);
        }
        return b.build();
    }

    /** Sends {@code m} on a blocking client and returns the task it answered with. */
    private Task send(Client c, Message m) throws Exception {
        AtomicReference<Task> got = new AtomicReference<>();
        c.sendMessage(m, List.of((e, card) -> {
            if (e instanceof TaskEvent t) {
                got.set(t.getTask());
            }
        }), null, auth());
        assertThat(got.get()).as("the answer to SendMessage").isNotNull();
        return got.get();
    }

    private void team(String team, String rules) {
        st.appendRules(rules);
        HttpResponse<String> r = st.post(Service.LEAD, "/api/v1/teams", Map.of("id", team));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    /** The team's permission rules ask a person before any {@code touch}. */
    private void askBeforeTouch(String team) {
        HttpResponse<String> perms = st.send(HttpRequest.newBuilder(URI.create(st.url(Service.LEAD) + "/api/v1/teams/"
                + team + "/permissions")).header("Authorization", "Bearer " + RelStack.API_TOKEN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"ask\": [\"Bash(touch:*)\"]}")).build());
        assertThat(perms.statusCode()).as(perms.body()).isEqualTo(200);
    }

    private static String rule(String name, String team, String lastRole, String lastMessage, String reply) {
        return "{\"name\":\"" + name + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"" + lastRole + "\""
                + (lastMessage == null ? "" : ",\"lastMessage\":\"" + lastMessage + "\"") + "},\"reply\":" + reply + "}";
    }

    private static String bash(String id, String command) {
        return "{\"toolCalls\":[{\"id\":\"" + id + "\",\"name\":\"bash\",\"arguments\":{\"command\":\""
                + command.replace("\"", "\\\"") + "\"}}]}";
    }

    private static String answer(Task t) {
        assertThat(t.artifacts()).as("artifacts of " + t.id()).isNotEmpty();
        return ((TextPart) t.artifacts().getFirst().parts().getFirst()).text();
    }

    // ---- the tests

    @Test
    void aTaskWithAToolCallCompletesWithTheAnswerAndARetriedMessageStartsNoSecondTurn() throws Exception {
        String team = "a2a-tool";
        team(team, rule("a2a-tool-ask", team, "user", "list the repo", bash("a2a-ls", "echo a2a-tool-output"))
                + "," + rule("a2a-tool-done", team, "tool", "a2a-tool-output", "{\"text\":\"the repo holds a2a-tool-output\"}"));
        AgentCard card = card(st.url(Service.LEAD), team);
        assertThat(card.name()).isEqualTo("Cohort team " + team);
        assertThat(card.supportedInterfaces().getFirst().url()).endsWith("/a2a/" + team);
        assertThat(card.capabilities().streaming()).isTrue();
        assertThat(card.securitySchemes()).containsKey("bearer");
        assertThat(card.skills()).extracting(s -> s.id()).contains("coding");

        Client c = client(card, false, false, (e, x) -> { }, e -> { });
        Message m = user("please list the repo", null);
        Task t = send(c, m);
        assertThat(t.status().state()).isEqualTo(TaskState.TASK_STATE_COMPLETED);
        assertThat(answer(t)).isEqualTo("the repo holds a2a-tool-output");
        assertThat(t.history()).extracting(Message::role).contains(Message.Role.ROLE_USER, Message.Role.ROLE_AGENT);

        Task again = send(c, m);
        assertThat(again.id()).isEqualTo(t.id());
        assertThat(again.status().state()).isEqualTo(TaskState.TASK_STATE_COMPLETED);
        try (Connection db = st.db(); var ps = db.prepareStatement("SELECT count(*) FROM lead.prompts WHERE team = ?")) {
            ps.setString(1, team);
            try (var rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).as("prompts of a message sent twice").isEqualTo(1);
            }
        }
        Task read = c.getTask(new TaskQueryParams(t.id(), 0, ""), auth());
        assertThat(read.status().state()).isEqualTo(TaskState.TASK_STATE_COMPLETED);
        assertThat(read.history()).isEmpty();
        var listed = c.listTasks(io.a2a.spec.ListTasksParams.builder().build(), auth());
        assertThat(listed.tasks()).extracting(Task::id).containsExactly(t.id());
        assertThat(c.listTasks(io.a2a.spec.ListTasksParams.builder().status(TaskState.TASK_STATE_WORKING).build(), auth())
                .tasks()).isEmpty();

        // an ended task has nothing to stream: the spec's UnsupportedOperationError, on the stream
        Client streaming = client(card, true, false, (e, x) -> { }, e -> { });
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        streaming.subscribeToTask(new TaskIdParams(t.id(), ""), List.of((e, x) -> { }), refused::complete, auth());
        Throwable why = refused.get(1, TimeUnit.MINUTES);
        assertThat(why).isInstanceOf(A2AError.class);
        assertThat(((A2AError) why).getCode()).isEqualTo(-32004);
    }

    @Test
    void anApprovalIsInputRequiredAndTheAnswerOnTheTaskLetsItComplete() throws Exception {
        String team = "a2a-ask";
        team(team, rule("a2a-ask-touch", team, "user", "make the marker", bash("a2a-touch", "touch approved-marker"))
                + "," + rule("a2a-ask-done", team, "tool", null, "{\"text\":\"marker made\"}"));
        askBeforeTouch(team);
        Client c = client(card(st.url(Service.LEAD), team), false, false, (e, x) -> { }, e -> { });

        Task t = send(c, user("please make the marker", null));
        assertThat(t.status().state()).isEqualTo(TaskState.TASK_STATE_INPUT_REQUIRED);
        assertThat(((TextPart) t.status().message().parts().getFirst()).text()).contains("bash").contains("approve");
        assertThat(Files.exists(st.teamWorkspace(team).resolve("approved-marker"))).isFalse();

        assertThatThrownBy(() -> send(c, user("maybe later", t.id()))).isInstanceOf(A2AClientException.class)
                .hasMessageContaining("approve");
        Task done = send(c, user("approve: it only makes a marker", t.id()));
        assertThat(done.id()).isEqualTo(t.id());
        assertThat(done.status().state()).isEqualTo(TaskState.TASK_STATE_COMPLETED);
        assertThat(answer(done)).isEqualTo("marker made");
        assertThat(Files.exists(st.teamWorkspace(team).resolve("approved-marker"))).isTrue();

        assertThatThrownBy(() -> send(c, user("approve", t.id()))).isInstanceOf(A2AClientException.class)
                .hasMessageContaining("takes no message now");
    }

    @Test
    void aCanceledTaskEndsCanceledAndItsApprovalWithIt() throws Exception {
        String team = "a2a-cancel";
        team(team, rule("a2a-cancel-touch", team, "user", "make the marker", bash("a2a-ctouch", "touch never-made"))
                + "," + rule("a2a-cancel-done", team, "tool", null, "{\"text\":\"should not happen\"}"));
        askBeforeTouch(team);
        Client c = client(card(st.url(Service.LEAD), team), false, true, (e, x) -> { }, e -> { });

        Task t = send(c, user("please make the marker", null));
        assertThat(t.status().state()).isIn(TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING,
                TaskState.TASK_STATE_INPUT_REQUIRED);
        await().atMost(LONG).until(() -> c.getTask(new TaskQueryParams(t.id(), null, ""), auth()).status().state()
                == TaskState.TASK_STATE_INPUT_REQUIRED);
        Task canceled = c.cancelTask(new TaskIdParams(t.id(), ""), auth());
        assertThat(canceled.status().state()).isEqualTo(TaskState.TASK_STATE_CANCELED);
        JsonNode approvals = RelStack.json(st.get(Service.LEAD, "/api/v1/teams/" + team + "/approvals?status=pending").body());
        assertThat(approvals.size()).as("pending approvals after the cancel").isZero();
        assertThat(Files.exists(st.teamWorkspace(team).resolve("never-made"))).isFalse();

        assertThatThrownBy(() -> c.cancelTask(new TaskIdParams(t.id(), ""), auth()))
                .isInstanceOf(A2AClientException.class).hasMessageContaining("has ended");
    }

    @Test
    void aTaskOutlivesItsLeadReplicaAndItsStreamIsResumedOnTheOther() throws Exception {
        String team = "a2a-durable";
        String gate = "a2a-durable-gate";
        team(team, rule("a2a-durable-run", team, "user", "run the long job", bash("a2a-long",
                "echo started >> ran.log; while [ ! -f " + gate + " ]; do sleep 0.2; done; echo a2a-long-through"))
                + "," + rule("a2a-durable-done", team, "tool", "a2a-long-through", "{\"text\":\"the long job ran\"}"));
        await().atMost(LONG).until(() -> st.groupSettled(Service.LEAD));
        int owner = st.replicaOwning(Service.LEAD, team);
        assertThat(owner).as("the replica owning the team's partition").isIn(1, 2);
        int other = owner == 1 ? 2 : 1;

        List<ClientEvent> seen = new CopyOnWriteArrayList<>();
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Client onOwner = client(card(st.replicaUrl(Service.LEAD, owner), team), true, false, (e, x) -> seen.add(e),
                e -> ended.complete(e));
        onOwner.sendMessage(user("please run the long job", null), List.of((e, x) -> seen.add(e)), ended::complete,
                auth());
        Path ran = st.teamWorkspace(team).resolve("ran.log");
        await().atMost(LONG).until(() -> Files.exists(ran));
        await().atMost(LONG).until(() -> !seen.isEmpty());
        String taskId = seen.stream().map(A2aClientIT::taskOf).filter(java.util.Objects::nonNull).findFirst().orElseThrow();

        st.killReplica(Service.LEAD, owner);
        try {
            Files.writeString(st.teamWorkspace(team).resolve(gate), "open");
            ended.get(2, TimeUnit.MINUTES); // the stream broke with its replica: it is over either way

            List<ClientEvent> resumed = new CopyOnWriteArrayList<>();
            CompletableFuture<Throwable> resumedEnd = new CompletableFuture<>();
            Client onOther = client(card(st.replicaUrl(Service.LEAD, other), team), true, false, (e, x) -> { },
                    resumedEnd::complete);
            onOther.subscribeToTask(new TaskIdParams(taskId, ""), List.of((e, x) -> resumed.add(e)),
                    resumedEnd::complete, auth());
            await().atMost(LONG).until(() -> !resumed.isEmpty()
                    && stateOf(resumed.getLast()) == TaskState.TASK_STATE_COMPLETED);
            assertThat(stateOf(resumed.getFirst())).as("the resumed stream starts with the task as it is")
                    .isIn(TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED);
            // the stream ends after the completed status: the server closes it, or the SDK's client cancels it
            Throwable end = resumedEnd.get(1, TimeUnit.MINUTES);
            assertThat(end == null || String.valueOf(end.getMessage()).contains("cancelled")).as(String.valueOf(end))
                    .isTrue();

            Task t = onOther.getTask(new TaskQueryParams(taskId, null, ""), auth());
            assertThat(t.status().state()).isEqualTo(TaskState.TASK_STATE_COMPLETED);
            assertThat(answer(t)).isEqualTo("the long job ran");
            assertThat(Files.readAllLines(ran)).as("the long job ran once").containsExactly("started");
        } finally {
            if (owner == 1) {
                st.startService(Service.LEAD);
            } else {
                st.startReplica(Service.LEAD, owner);
            }
        }
    }

    private static TaskState stateOf(ClientEvent e) {
        Task t = e instanceof TaskUpdateEvent u ? u.getTask() : ((TaskEvent) e).getTask();
        return t.status().state();
    }

    private static String taskOf(ClientEvent e) {
        if (e instanceof TaskEvent t) {
            return t.getTask().id();
        }
        if (e instanceof TaskUpdateEvent u) {
            return u.getTask().id();
        }
        return null;
    }

    @Test
    void badRequestsGetTheSpecsErrorCodes() throws Exception {
        String team = "a2a-errors";
        team(team, rule("a2a-errors-any", team, "user", null, "{\"text\":\"ok\"}"));
        Client c = client(card(st.url(Service.LEAD), team), false, false, (e, x) -> { }, e -> { });
        assertThatThrownBy(() -> c.getTask(new TaskQueryParams("no-such-task", null, ""), auth()))
                .isInstanceOf(A2AClientException.class)
                .satisfies(e -> assertThat(((A2AError) e.getCause()).getCode()).isEqualTo(-32001));
        assertThatThrownBy(() -> c.cancelTask(new TaskIdParams("no-such-task", ""), auth()))
                .isInstanceOf(A2AClientException.class)
                .satisfies(e -> assertThat(((A2AError) e.getCause()).getCode()).isEqualTo(-32001));

        assertThat(rpc(team, "{not json", null).path("error").path("code").asInt()).isEqualTo(-32700);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1}", null).path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"Nope\",\"params\":{}}", null)
                .path("error").path("code").asInt()).isEqualTo(-32601);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{"
                + "\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}}", null).path("error").path("code").asInt())
                .as("no messageId").isEqualTo(-32602);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{"
                + "\"messageId\":\"m-file\",\"role\":\"ROLE_USER\",\"parts\":[{\"url\":\"https://x/y.png\"}]}}}", null)
                .path("error").path("code").asInt()).as("a file part").isEqualTo(-32005);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}", "0.3")
                .path("error").path("code").asInt()).as("A2A-Version 0.3").isEqualTo(-32009);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetExtendedAgentCard\"}", null)
                .path("error").path("code").asInt()).isEqualTo(-32007);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\",\"params\":{\"pageSize\":500}}",
                null).path("error").path("code").asInt()).as("pageSize over 100").isEqualTo(-32602);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\",\"params\":{\"tenant\":\"other\"}}",
                null).path("error").path("code").asInt()).as("another team's tenant").isEqualTo(-32602);
        assertThat(rpc(team, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"CreateTaskPushNotificationConfig\","
                + "\"params\":{}}", null).path("error").path("code").asInt()).isEqualTo(-32003);
        HttpResponse<String> noToken = st.send(HttpRequest.newBuilder(URI.create(st.url(Service.LEAD) + "/a2a/" + team))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\"}")).build());
        assertThat(noToken.statusCode()).isEqualTo(401);
        HttpResponse<String> unknownCard = st.send(HttpRequest.newBuilder(URI.create(st.url(Service.LEAD)
                + "/.well-known/agent-card.json?team=nobody")).GET().build());
        assertThat(unknownCard.statusCode()).isEqualTo(404);
    }

    private JsonNode rpc(String team, String body, String version) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(st.url(Service.LEAD) + "/a2a/" + team))
                .header("Authorization", "Bearer " + RelStack.API_TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (version != null) {
            b.header("A2A-Version", version);
        }
        HttpResponse<String> r = st.send(b.build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return RelStack.json(r.body());
    }
}
