package dev.cohort.devstack.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/** One scenario rule: a name, a {@link Match}, how many times it may answer (null = unlimited) and a {@link Reply}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Rule(String name, Match match, Integer times, Reply reply) {

    /** Starts a rule builder: {@code Rule.when().agent("a").lastMessage("x").thenText("y")}. */
    public static When when() {
        return new When();
    }

    /** The match, never null: a rule without one answers every request. */
    public Match effectiveMatch() {
        return match == null ? Match.ANY : match;
    }

    void validate(String where) {
        if (reply == null) {
            throw new IllegalArgumentException(where + ": a rule needs a reply");
        }
        if (times != null && times < 1) {
            throw new IllegalArgumentException(where + ": times must be >= 1, got " + times);
        }
        effectiveMatch().validate(where);
        reply.validate(where);
    }

    /** Fluent builder of a {@link Rule}; the {@code then...} methods finish it. */
    public static final class When {
        private String name;
        private Integer times;
        private String agent;
        private String agentRegex;
        private String lastMessage;
        private String lastUserMessage;
        private String anyMessage;
        private String system;
        private String model;
        private Integer call;
        private Boolean hasTools;
        private Boolean hasToolResult;
        private String lastRole;

        private When() {
        }

        public When name(String value) {
            this.name = value;
            return this;
        }

        public When times(int value) {
            this.times = value;
            return this;
        }

        /** Exact agent ({@code user} field), or a regex when it starts with {@code ^}. */
        public When agent(String value) {
            this.agent = value;
            return this;
        }

        public When agentRegex(String value) {
            this.agentRegex = value;
            return this;
        }

        public When lastMessage(String regex) {
            this.lastMessage = regex;
            return this;
        }

        public When lastUserMessage(String regex) {
            this.lastUserMessage = regex;
            return this;
        }

        public When anyMessage(String regex) {
            this.anyMessage = regex;
            return this;
        }

        public When system(String regex) {
            this.system = regex;
            return this;
        }

        public When model(String value) {
            this.model = value;
            return this;
        }

        /** The n-th request (1-based) from this agent since the last reset. */
        public When call(int n) {
            this.call = n;
            return this;
        }

        public When hasTools(boolean value) {
            this.hasTools = value;
            return this;
        }

        public When hasToolResult(boolean value) {
            this.hasToolResult = value;
            return this;
        }

        public When lastRole(String value) {
            this.lastRole = value;
            return this;
        }

        public Rule then(Reply reply) {
            Rule rule = new Rule(name, new Match(agent, agentRegex, lastMessage, lastUserMessage, anyMessage, system,
                    model, call, hasTools, hasToolResult, lastRole), times, reply);
            rule.validate("rule '" + name + "'");
            return rule;
        }

        public Rule thenText(String text) {
            return then(Reply.text(text));
        }

        public Rule thenToolCall(String toolName, String argumentsJson) {
            return then(Reply.toolCalls(Reply.ToolCall.of(toolName, argumentsJson)));
        }

        public Rule thenToolCalls(Reply.ToolCall... calls) {
            return then(Reply.toolCalls(calls));
        }

        public Rule thenError(int status, String type, String code, String message) {
            return then(Reply.error(Reply.Error.of(status, type, code, message)));
        }

        public Rule thenErrorPreset(String preset) {
            return then(Reply.errorPreset(preset));
        }
    }
}
