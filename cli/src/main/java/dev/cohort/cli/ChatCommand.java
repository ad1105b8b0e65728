package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Ids;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort chat}: a REPL on one team's lead. Each line read from stdin is a prompt (source {@code cli}); one
 * SSE stream shows the team's events as they happen (a teammate's prefixed with its name); an approval request is
 * asked inline ({@code [name] } first when a teammate asks) and answered over HTTP;
 * Ctrl-C interrupts the running turn (not the program); {@code /quit} or end of input leaves.
 *
 * <p>Threads: the main thread takes lines from a queue that a daemon thread fills from stdin (so the stream and
 * the signal handler never wait for the keyboard); a daemon thread reads the event stream and reconnects after the
 * last seen seq when it drops. Without {@code --since} only events newer than the start of the session are shown
 * (the server's {@code Date}, else the local clock); pending approvals are asked at start.
 *
 * <p>Everything agents, tools and events wrote is printed through {@link EventFormatter} or {@link TerminalText}, so
 * it cannot move the cursor or rewrite the question a person answers; an approval question shows the whole call, or
 * its first {@value #QUESTION_MAX} characters and how to see the rest ({@code /show <id>}).
 */
@Command(name = "chat", mixinStandardHelpOptions = true,
        description = {"Chat with a team's lead: each line is a prompt; its work streams live.",
            "Approval requests are asked inline ([y/N]; `n <reason>` denies with a reason).",
            "Ctrl-C interrupts the running turn; /quit or Ctrl-D leaves; /help lists the commands."})
public final class ChatCommand extends ApiCommand {

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Option(names = "--since", paramLabel = "SEQ", description = "Also show the stored events after this seq (0 = the whole history).")
    Long since;

    /** The stdin end marker (compared by identity). */
    private static final String EOF = new String("<eof>");

    private static final String HELP = """
            commands:
              /quit, /exit     leave (so does Ctrl-D)
              /interrupt       stop the running turn (so does Ctrl-C)
              /tasks           the task board
              /approvals       pending approval requests
              /show ID         the whole call of an approval request (ID: its first characters are enough)
              /plans           plans waiting for approval (teammates in plan mode)
              /approve-plan ID [feedback], /reject-plan ID [feedback]
                               decide a plan (ID: its first characters are enough)
              /help            this list
            any other line is a prompt for the lead.""";

    /** The longest call an approval question shows; a longer one is cut with a count and {@code /show <id>}. */
    static final int QUESTION_MAX = 2_000;

    /**
     * An approval request waiting for this session's answer; {@code agent} asked it ({@code lead} or a teammate);
     * {@code call} is the whole call as the model wrote it ({@link EventFormatter#approvalCall}), not yet neutralised.
     */
    record Pending(String id, String agent, String tool, String call) {
    }

    private Style style;
    private EventFormatter formatter;
    private final PrintStream out = System.out;
    private final Object lock = new Object();
    private final BlockingQueue<String> input = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedDeque<Pending> approvals = new ConcurrentLinkedDeque<>();
    private final Set<String> seenApprovals = ConcurrentHashMap.newKeySet();
    private final AtomicLong lastSeq = new AtomicLong();
    private volatile boolean turnRunning;
    private volatile boolean closing;
    /** The question shown last and not yet answered: re-shown below output that interrupts it on a terminal. */
    private volatile String openQuestion;
    private boolean terminal;
    private ApiClient api;
    private Instant shownFrom;

    @Override
    int run() throws IOException, InterruptedException {
        terminal = Style.isTerminal();
        style = Style.detect();
        formatter = new EventFormatter(style);
        api = lead();
        // the team must exist; its answer's Date is the server's "now": older events are history
        HttpResponse<String> teamInfo = api.getResponse("/api/v1/teams/" + ApiClient.seg(team));
        shownFrom = since != null ? Instant.EPOCH : ApiClient.serverDate(teamInfo).orElse(Instant.now());
        lastSeq.set(since == null ? 0 : since);
        println(style.bold("cohort chat") + style.dim(" · team " + team + " · " + api.baseUrl()
                + " · /help for commands, Ctrl-C interrupts a turn, /quit leaves"));

        for (JsonNode a : api.get("/api/v1/teams/" + ApiClient.seg(team) + "/approvals?status=pending")) {
            offer(new Pending(a.path("id").asText(), a.path("agent").asText(Ids.LEAD), a.path("tool").asText(),
                    EventFormatter.approvalCall(a.path("tool").asText(), a.get("args"))), a.path("reason").asText(null));
        }
        Thread stream = Thread.ofPlatform().daemon().name("cohort-chat-events").start(this::streamLoop);
        Thread.ofPlatform().daemon().name("cohort-chat-stdin").start(this::readStdin);
        installInterruptHandler();
        try {
            return repl();
        } finally {
            closing = true;
            stream.interrupt();
        }
    }

    private int repl() throws InterruptedException {
        while (true) {
            String line = input.take();
            if (line == EOF) {
                return 0;
            }
            openQuestion = null;
            String text = line.strip();
            Pending head = approvals.peekFirst();
            if (head != null && !text.startsWith("/")) {
                answer(head, text);
                continue;
            }
            if (text.isEmpty()) {
                continue;
            }
            switch (text.split("\\s+", 2)[0]) {
                case "/quit", "/exit" -> {
                    return 0;
                }
                case "/help" -> println(style.dim(HELP));
                case "/interrupt" -> interrupt("");
                case "/tasks" -> guarded(() -> TasksCommand.table(api.get("/api/v1/teams/" + ApiClient.seg(team) + "/tasks"))
                        .forEach(this::println));
                case "/plans" -> guarded(() -> println(PlanDecisions.lines(style, new PlanDecisions(api, team).pending())));
                case "/approve-plan", "/reject-plan" -> guarded(() -> {
                    try {
                        println(new PlanDecisions(api, team).decide(text));
                    } catch (IllegalArgumentException e) {
                        println(style.yellow(TerminalText.line(e.getMessage())));
                    } catch (ApiClient.Failure f) {
                        println(style.red(f.detail()));
                    }
                });
                case "/show" -> {
                    show(text);
                    Pending next = approvals.peekFirst();
                    if (next != null) {
                        ask(next);
                    }
                }
                case "/approvals" -> {
                    if (approvals.isEmpty()) {
                        println(style.dim("no approval request is waiting"));
                    } else {
                        approvals.forEach(p -> println(EventFormatter.prefix(style, p.agent(), false) + TerminalText.line(p.id())
                                + "  " + call(style, p)));
                        ask(approvals.peekFirst());
                    }
                }
                default -> {
                    if (text.startsWith("/")) {
                        println(style.red("unknown command " + text.split("\\s+", 2)[0]) + style.dim(" (/help lists them)"));
                    } else {
                        send(line);
                    }
                }
            }
        }
    }

    private void send(String text) {
        boolean busy = turnRunning;
        guarded(() -> {
            api.post("/api/v1/teams/" + ApiClient.seg(team) + "/prompts", Map.of("text", text, "source", "cli"));
            if (busy) {
                println(style.dim("(the lead is busy: it reads this at its next step)"));
            }
        });
    }

    /** y / yes approves; n / no / an empty line denies ({@code n <reason>} with a reason); anything else asks again. */
    private void answer(Pending p, String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        Boolean approve = null;
        String reason = null;
        if (lower.equals("y") || lower.equals("yes")) {
            approve = true;
        } else if (lower.isEmpty() || lower.equals("n") || lower.equals("no")) {
            approve = false;
        } else if (lower.startsWith("n ") || lower.startsWith("no ")) {
            approve = false;
            reason = text.substring(text.indexOf(' ') + 1).strip();
        }
        if (approve == null) {
            println(style.yellow("answer y or n (`n <reason>` to say why)"));
            ask(p);
            return;
        }
        approvals.remove(p);
        boolean yes = approve;
        String why = reason;
        guarded(() -> {
            try {
                api.post("/api/v1/teams/" + ApiClient.seg(team) + "/approvals/" + ApiClient.seg(p.id()),
                        why == null ? Map.of("approve", yes) : Map.of("approve", yes, "reason", why));
            } catch (ApiClient.Failure f) {
                if (f.status() != 409) {
                    throw f;
                }
                println(style.dim(f.detail()));
            }
        });
        Pending next = approvals.peekFirst();
        if (next != null) {
            ask(next);
        }
    }

    /** Remembers a request (once) and asks it when nothing else is being asked. */
    private void offer(Pending p, String reason) {
        if (!seenApprovals.add(p.id())) {
            return;
        }
        approvals.addLast(p);
        if (reason != null && !reason.isBlank()) {
            println(EventFormatter.prefix(style, p.agent(), false) + style.yellow("? ")
                    + style.dim(EventFormatter.oneLine(reason, 200) + " [" + EventFormatter.shortId(p.id()) + "]"));
        }
        if (approvals.peekFirst() == p) {
            ask(p);
        }
    }

    /**
     * {@code Approve bash: rm -r build? [y/N] }, prefixed {@code [alice] } when a teammate asks: one line, the call
     * neutralised ({@link TerminalText#line}) and whole, or its first {@value #QUESTION_MAX} characters followed by
     * {@code (… N more characters, /show <id>)}.
     */
    static String question(Style style, Pending p) {
        TerminalText.Bounded call = TerminalText.bounded(p.call(), QUESTION_MAX);
        String head = "Approve " + TerminalText.line(p.tool()) + (p.call().isEmpty() ? "" : ": " + call.head());
        return EventFormatter.prefix(style, p.agent(), false) + (call.more() == 0 ? style.yellow(head + "?")
                : style.yellow(head) + style.dim(more(p, call)) + style.yellow("?")) + " [y/N] ";
    }

    /** {@code bash: rm -r build}, as {@link #question} shows the call (whole, or cut with a count and {@code /show}). */
    static String call(Style style, Pending p) {
        TerminalText.Bounded call = TerminalText.bounded(p.call(), QUESTION_MAX);
        return TerminalText.line(p.tool()) + (p.call().isEmpty() ? "" : ": " + call.head())
                + (call.more() == 0 ? "" : style.dim(more(p, call)));
    }

    /** {@code  (… 1234 more characters, /show 0123abcd)}. */
    private static String more(Pending p, TerminalText.Bounded call) {
        return " (" + TerminalText.more(call.more(), "/show " + EventFormatter.shortId(p.id())) + ")";
    }

    /**
     * What {@code /show <id>} prints: who asks, the tool and the call's length, then every line of the call behind a
     * gutter (so none of them can pass for a question of the chat), neutralised by {@link TerminalText#safe}.
     */
    static List<String> shown(Style style, Pending p) {
        List<String> out = new ArrayList<>();
        out.add(EventFormatter.prefix(style, p.agent(), false) + style.yellow("approval " + TerminalText.line(p.id()) + ": "
                + TerminalText.line(p.tool())) + style.dim(" (" + p.call().length() + " characters)"));
        for (String l : TerminalText.safe(p.call()).split("\n", -1)) {
            out.add(style.dim("  │ ") + l);
        }
        return out;
    }

    /** {@code /show <id>}: the whole call of the pending request whose id starts with {@code <id>}. */
    private void show(String text) {
        String[] parts = text.split("\\s+", 2);
        if (parts.length < 2 || parts[1].isBlank()) {
            println(style.yellow("usage: /show <approval id>  (/approvals lists them)"));
            return;
        }
        String given = parts[1].strip();
        List<Pending> matches = approvals.stream().filter(p -> p.id().startsWith(given)).toList();
        if (matches.size() == 1) {
            println(shown(style, matches.getFirst()));
        } else {
            println(style.yellow(matches.isEmpty() ? "no pending approval request starts with " + TerminalText.line(given)
                    + " (/approvals lists them)" : TerminalText.line(given) + " matches " + matches.size()
                    + " requests; give more of the id"));
        }
    }

    private void ask(Pending p) {
        String q = question(style, p);
        synchronized (lock) {
            if (terminal) {
                out.print(q);
                out.flush();
                openQuestion = q;
            } else {
                out.println(q.stripTrailing());
                out.flush();
            }
        }
    }

    // ---- the event stream ----------------------------------------------------------------------------------

    private void streamLoop() {
        int failures = 0;
        while (!closing) {
            try {
                api.stream(team, lastSeq.get(), e -> {
                    onEvent(e);
                    return closing;
                });
                failures = 0;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (closing) {
                    return;
                }
                failures++;
                if (failures == 1 || failures % 10 == 0) {
                    println(style.red("event stream: " + (e instanceof IOException io ? describe(io) : TerminalText.line(e.toString())))
                            + style.dim(" - reconnecting"));
                }
            }
            try {
                Thread.sleep(Math.min(5_000, 250L * (1L << Math.min(failures, 5))));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void onEvent(JsonNode e) {
        long seq = e.path("seq").asLong();
        if (seq <= lastSeq.get() && seq > 0) {
            return;
        }
        lastSeq.set(Math.max(lastSeq.get(), seq));
        String type = e.path("type").asText();
        JsonNode d = e.path("data");
        boolean lead = "lead".equals(e.path("agent").asText("lead")) && !d.path("subagent").asBoolean(false);
        if (lead && "turn_started".equals(type)) {
            turnRunning = true;
        } else if (lead && "turn_completed".equals(type)) {
            turnRunning = false;
        }
        if (isHistory(e)) {
            if ("approval_resolved".equals(type)) {
                seenApprovals.add(d.path("approvalId").asText());
            }
            return;
        }
        switch (type) {
            case "approval_requested" -> {
                String id = d.path("approvalId").asText();
                if (!seenApprovals.contains(id) && "pending".equals(d.path("status").asText("pending"))) {
                    String tool = d.path("tool").asText("?");
                    offer(new Pending(id, e.path("agent").asText(Ids.LEAD), tool, EventFormatter.approvalCall(tool, d.get("args"))),
                            d.path("reason").asText(null));
                    return;
                }
            }
            case "approval_resolved" -> {
                String id = d.path("approvalId").asText();
                seenApprovals.add(id);
                Pending head = approvals.peekFirst();
                boolean wasAsked = head != null && head.id().equals(id);
                approvals.removeIf(p -> p.id().equals(id));
                if (wasAsked) {
                    // answered elsewhere (another chat, `cohort approve`, the timeout): stop asking
                    synchronized (lock) {
                        if (openQuestion != null) {
                            out.println();
                            openQuestion = null;
                        }
                    }
                    println(formatter.format(e));
                    Pending next = approvals.peekFirst();
                    if (next != null) {
                        ask(next);
                    }
                    return;
                }
            }
            default -> {
                // printed below
            }
        }
        println(formatter.format(e));
    }

    private boolean isHistory(JsonNode e) {
        if (since != null) {
            return false;
        }
        String ts = e.path("ts").asText("");
        try {
            return !ts.isEmpty() && Instant.parse(ts).isBefore(shownFrom);
        } catch (RuntimeException ex) {
            return false;
        }
    }

    // ---- stdin and Ctrl-C ----------------------------------------------------------------------------------

    private void readStdin() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                input.add(line);
            }
        } catch (IOException e) {
            // treated as the end of input
        }
        input.add(EOF);
    }

    private void installInterruptHandler() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), sig -> Thread.ofPlatform().daemon()
                    .start(() -> interrupt("^C ")));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            println(style.dim("(Ctrl-C cannot be caught here: it ends the chat; /interrupt stops a turn)"));
        }
    }

    private void interrupt(String prefix) {
        try {
            api.post("/api/v1/teams/" + ApiClient.seg(team) + "/agents/lead/interrupt", Map.of());
            println(style.yellow(prefix + "interrupting the turn…"));
        } catch (ApiClient.Failure f) {
            println(style.dim(prefix + (f.status() == 409 ? "no turn is running (/quit or Ctrl-D leaves)" : describe(f))));
        } catch (IOException e) {
            println(style.red(prefix + describe(e)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- output --------------------------------------------------------------------------------------------

    private interface Call {
        void run() throws IOException, InterruptedException;
    }

    /** Runs a request; its failure is printed, the chat goes on. */
    private void guarded(Call c) {
        try {
            c.run();
        } catch (IOException e) {
            println(style.red(describe(e)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void println(String line) {
        println(List.of(line));
    }

    private void println(List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        synchronized (lock) {
            String q = openQuestion;
            if (q != null) {
                out.println();
            }
            lines.forEach(out::println);
            if (q != null && q == openQuestion) {
                out.print(q);
            }
            out.flush();
        }
    }
}
