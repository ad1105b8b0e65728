package dev.cohort.devstack.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Conditions a chat-completions request must meet for a rule to answer it; null fields match anything. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Match(
        String agent,
        String agentRegex,
        String lastMessage,
        String lastUserMessage,
        String anyMessage,
        String system,
        String model,
        Integer call,
        Boolean hasTools,
        Boolean hasToolResult,
        String lastRole) {

    /** A match with no condition: answers every request. */
    public static final Match ANY = new Match(null, null, null, null, null, null, null, null, null, null, null);

    /** Regexes compiled with DOTALL so that {@code .} spans the newlines of long prompts. */
    static Pattern regex(String regex) {
        return Pattern.compile(regex, Pattern.DOTALL);
    }

    /** Compiles every regex once so that a bad scenario fails at load time, not at the first request. */
    void validate(String where) {
        List<String> regexes = new ArrayList<>();
        if (agent != null && agent.startsWith("^")) {
            regexes.add(agent);
        }
        for (String r : new String[] {agentRegex, lastMessage, lastUserMessage, anyMessage, system}) {
            if (r != null) {
                regexes.add(r);
            }
        }
        for (String r : regexes) {
            try {
                regex(r);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(where + ": invalid regex '" + r + "': " + e.getDescription(), e);
            }
        }
        if (call != null && call < 1) {
            throw new IllegalArgumentException(where + ": match.call is 1-based, got " + call);
        }
    }
}
