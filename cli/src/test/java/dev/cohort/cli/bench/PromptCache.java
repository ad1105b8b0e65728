package dev.cohort.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The round benchmark's prompt-cache figure: how many input tokens a round's model request carries, and what share of
 * them a provider's prompt cache could serve because the previous request of the same turn began the same way.
 *
 * <p>For each model request of a turn after the first, the <b>cacheable share</b> is the longest common prefix of
 * its prompt and the previous request's prompt, over its prompt's length. The prompt is what a provider's cache keys
 * on, in the order it renders it: the tools, then the system prompt (Anthropic's {@code system}, OpenAI Responses'
 * {@code instructions}), then the conversation ({@code messages}, {@code input}), each as compact JSON in the
 * harness's own field order and with Anthropic's {@code cache_control} markers left out (they say where a cached
 * prefix ends; they are not prompt). On the Anthropic and chat-completions wires a {@code content} (or Anthropic's
 * {@code system}) of exactly one text block is written as the string it is equivalent to, since the APIs read both
 * alike: Claude Code sends a message as a block while it carries the cache marker and as a string once the marker
 * has moved on. Anthropic documents that order (tools, system, messages); OpenAI caches "the
 * messages array and the tools" from the prompt's start without publishing its rendering, so the same order is used
 * for its two wires. Everything else in a body (model, max_tokens, stream, metadata, user) is not prompt. Tokens are
 * estimated as characters / 4 for every harness, the scripted model server's own estimate of {@code prompt_tokens}.
 *
 * <p>Beside it, the byte-identical prefix of the <b>raw bodies</b>, as they crossed the wire: where a body puts a
 * field that changes (a moving {@code cache_control} marker, a conversation before the tools) ahead of what stays, it
 * is shorter than the prompt's. Providers parse the JSON, so this is not what they cache; it shows how the body is
 * laid out. Neither figure applies a provider's minimum (OpenAI caches from 1,024 tokens in steps of 128; Anthropic
 * only up to a {@code cache_control} breakpoint written before), so both are upper bounds of a provider's hit.
 */
final class PromptCache {

    private static final ObjectMapper JSON = new ObjectMapper();

    private PromptCache() {
    }

    /** The wire a request came on, which says where its tools, system prompt and conversation are. */
    enum Wire {
        /** OpenAI chat completions: the system prompt is the first message. */
        CHAT_COMPLETIONS(null, "messages"),
        /** Anthropic Messages. */
        MESSAGES("system", "messages"),
        /** OpenAI Responses. */
        RESPONSES("instructions", "input");

        final String system;
        final String conversation;

        Wire(String system, String conversation) {
            this.system = system;
            this.conversation = conversation;
        }

        /** The wire of a request path ({@code /v1/chat/completions}, {@code /v1/messages}, {@code /v1/responses}). */
        static Wire ofPath(String path) {
            if (path.endsWith("/chat/completions")) {
                return CHAT_COMPLETIONS;
            }
            if (path.endsWith("/messages")) {
                return MESSAGES;
            }
            if (path.endsWith("/responses")) {
                return RESPONSES;
            }
            throw new IllegalArgumentException("not a model request path: " + path);
        }
    }

    /**
     * One model request as measured: its prompt in the provider's order, its raw body, and the input and cache-read
     * tokens the server reported for it (-1 when it reported no cache figure).
     */
    record Request(String prompt, String body, long reportedInput, long reportedCacheRead) {

        /** A request's body (UTF-8) on {@code wire}, with the server's answer to read its usage from (null: none). */
        static Request of(Wire wire, byte[] body, byte[] answer) {
            String text = new String(body, StandardCharsets.UTF_8);
            long input = -1;
            long read = -1;
            if (answer != null) {
                JsonNode usage = parse(new String(answer, StandardCharsets.UTF_8)).path("usage");
                if (usage.has("cache_read_input_tokens")) {
                    read = usage.path("cache_read_input_tokens").asLong();
                    input = usage.path("input_tokens").asLong() + usage.path("cache_creation_input_tokens").asLong() + read;
                } else if (usage.path("prompt_tokens_details").has("cached_tokens")) {
                    read = usage.path("prompt_tokens_details").path("cached_tokens").asLong();
                    input = usage.path("prompt_tokens").asLong();
                }
            }
            return new Request(PromptCache.prompt(wire, parse(text)), text, input, read);
        }
    }

    /** The prompt of a request body on {@code wire}: tools, system prompt, conversation, without cache markers. */
    static String prompt(Wire wire, JsonNode body) {
        boolean textBlocks = wire != Wire.RESPONSES;
        StringBuilder out = new StringBuilder();
        out.append(normalized(body.path("tools"), textBlocks)).append('\n');
        if (wire.system != null) {
            JsonNode system = body.path(wire.system).deepCopy();
            normalize(system, textBlocks);
            String oneText = textBlocks ? oneText(system) : null;
            out.append(oneText != null ? JSON.getNodeFactory().textNode(oneText).toString() : normalized(system, textBlocks))
                    .append('\n');
        }
        return out.append(normalized(body.path(wire.conversation), textBlocks)).toString();
    }

    /**
     * {@code node} as compact JSON, its field order kept, every {@code cache_control} field left out and (with
     * {@code textBlocks}) every {@code content} of one text block written as its string; "" when missing.
     */
    static String normalized(JsonNode node, boolean textBlocks) {
        if (node.isMissingNode()) {
            return "";
        }
        JsonNode copy = node.deepCopy();
        normalize(copy, textBlocks);
        return copy.toString();
    }

    private static void normalize(JsonNode node, boolean textBlocks) {
        if (node instanceof ObjectNode o) {
            o.remove("cache_control");
            o.forEach(n -> normalize(n, textBlocks));
            String oneText = textBlocks ? oneText(o.path("content")) : null;
            if (oneText != null) {
                o.put("content", oneText);
            }
        } else if (node instanceof ArrayNode a) {
            a.forEach(n -> normalize(n, textBlocks));
        }
    }

    /** The text of {@code [{"type":"text","text":…}]} (markers already left out), else null. */
    private static String oneText(JsonNode content) {
        if (!content.isArray() || content.size() != 1) {
            return null;
        }
        JsonNode block = content.get(0);
        return block.size() == 2 && "text".equals(block.path("type").asText()) && block.path("text").isTextual()
                ? block.path("text").asText() : null;
    }

    /** The length of the longest common prefix of {@code a} and {@code b}, in chars. */
    static int commonPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }

    /** Tokens as estimated for every harness alike: characters / 4, rounded up (the scripted server's estimate). */
    static long tokens(long chars) {
        return (chars + 3) / 4;
    }

    private static JsonNode parse(String text) {
        try {
            JsonNode n = JSON.readTree(text);
            return n == null ? JSON.createObjectNode() : n;
        } catch (IOException e) {
            throw new UncheckedIOException("a model request that is not JSON", e);
        }
    }

    /** The brackets that close a conversation and its last message and block, where the next round goes on. */
    static final int CLOSING = 3;

    /**
     * The figures over many turns: per round (each request after a turn's first), its input tokens, the tokens of
     * the prompt prefix it shares with the round before, the raw bodies' shared prefix and the server's cache reads.
     */
    static final class Tally {
        private long rounds;
        private long promptChars;
        private long prefixChars;
        private long bodyChars;
        private long bodyPrefixChars;
        private long reportedRounds;
        private long reportedInput;
        private long reportedRead;
        private double lowestShare = Double.NaN;
        private String lowestAt = "";
        private long broken;

        /** One turn's model requests in their order: every request after the first is a round. */
        void addTurn(List<Request> requests) {
            for (int i = 1; i < requests.size(); i++) {
                add(requests.get(i - 1), requests.get(i), i);
            }
        }

        private void add(Request previous, Request current, int round) {
            int prefix = commonPrefix(previous.prompt(), current.prompt());
            rounds++;
            promptChars += current.prompt().length();
            prefixChars += prefix;
            bodyChars += current.body().length();
            bodyPrefixChars += commonPrefix(previous.body(), current.body());
            if (current.reportedCacheRead() >= 0) {
                reportedRounds++;
                reportedInput += current.reportedInput();
                reportedRead += current.reportedCacheRead();
            }
            if (prefix < previous.prompt().length() - CLOSING) {
                broken++;
            }
            double share = current.prompt().isEmpty() ? 1 : prefix / (double) current.prompt().length();
            if (Double.isNaN(lowestShare) || share < lowestShare) {
                lowestShare = share;
                lowestAt = String.format("round %d: the prompt differs from the round before at char %d of %d: \"%s\" "
                        + "instead of \"%s\"", round, prefix, current.prompt().length(), around(current.prompt(), prefix),
                        around(previous.prompt(), prefix));
            }
        }

        private static String around(String s, int at) {
            return s.substring(Math.max(0, at - 30), Math.min(s.length(), at + 50)).replace("\n", "\\n");
        }

        long rounds() {
            return rounds;
        }

        /**
         * The rounds whose prompt did not begin with the whole previous prompt (but for the {@link #CLOSING} brackets
         * that close its conversation, where a round goes on): something before the round's new messages changed.
         */
        long broken() {
            return broken;
        }

        /** Mean input tokens per round (the prompt, characters / 4). */
        double inputTokensPerRound() {
            return rounds == 0 ? Double.NaN : tokens(promptChars) / (double) rounds;
        }

        /** Mean tokens per round the previous request's prompt shares. */
        double cacheableTokensPerRound() {
            return rounds == 0 ? Double.NaN : tokens(prefixChars) / (double) rounds;
        }

        /** The cacheable share over all rounds: shared prefix tokens / input tokens. */
        double share() {
            return promptChars == 0 ? Double.NaN : prefixChars / (double) promptChars;
        }

        /** The lowest share of a single round. */
        double lowestShare() {
            return lowestShare;
        }

        /** Where the round with the lowest share broke from the round before. */
        String lowestAt() {
            return lowestAt;
        }

        /** Mean raw body tokens per round (characters / 4). */
        double bodyTokensPerRound() {
            return rounds == 0 ? Double.NaN : tokens(bodyChars) / (double) rounds;
        }

        /** The raw bodies' byte-identical prefix over their length. */
        double bodyShare() {
            return bodyChars == 0 ? Double.NaN : bodyPrefixChars / (double) bodyChars;
        }

        /** The server's cache reads over its input tokens, over the rounds it reported them for; NaN when none. */
        double reportedShare() {
            return reportedRounds == 0 || reportedInput == 0 ? Double.NaN : reportedRead / (double) reportedInput;
        }

        /** One line: tokens per round, the cacheable share, the raw bodies' and the server's. */
        String describe() {
            if (rounds == 0) {
                return "no rounds measured";
            }
            return String.format("%d rounds: input %.0f tokens per round (chars/4 of the prompt), cacheable %.0f = %.1f %% "
                    + "(lowest round %.1f %%; %d rounds did not extend the round before); raw body %.0f tokens, byte-identical "
                    + "prefix %.1f %%; reported by the server: %s",
                    rounds, inputTokensPerRound(), cacheableTokensPerRound(), 100 * share(), 100 * lowestShare, broken,
                    bodyTokensPerRound(), 100 * bodyShare(),
                    Double.isNaN(reportedShare()) ? "no cache figure" : String.format("%.1f %% cache reads of %.0f input tokens per round",
                            100 * reportedShare(), reportedInput / (double) reportedRounds));
        }
    }
}
