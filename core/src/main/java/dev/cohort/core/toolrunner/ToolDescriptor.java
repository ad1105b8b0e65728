package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * One entry of the tool runner's catalogue ({@code GET /internal/v1/tools}): everything an agent needs to offer a
 * workspace tool to its model and to gate its calls, as the tool itself declares it in the runner.
 *
 * @param name        the name the model calls
 * @param description the description sent to the model
 * @param parameters  the JSON schema of the arguments (an {@code object} schema)
 * @param mutating    {@code true} when a call may change files or processes ({@code plan} mode refuses it)
 * @param roles       the agents that get the tool: {@code lead}, {@code teammate}, {@code subagent}
 * @param permission  what a call puts at stake, as data ({@link Subject})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolDescriptor(String name, String description, JsonNode parameters, boolean mutating,
        List<String> roles, Subject permission) {

    public ToolDescriptor {
        Objects.requireNonNull(name, "name");
        roles = roles == null ? List.of() : List.copyOf(roles);
        permission = permission == null ? Subject.PATH : permission;
    }

    /**
     * How the permission subject of a call is read from its arguments (the engine's {@code PermissionSubject}).
     *
     * @param kind     {@code none}; {@code path}: the {@code argument} names a path a rule is matched against (no ask
     *                 of its own); {@code command}: the {@code argument} is a shell command; {@code file-write}: the
     *                 {@code argument} is a file written; {@code destructive}: the call destroys work when the
     *                 boolean argument {@code when} is true (asks, reported as {@code rule} with {@code reason})
     * @param argument the argument holding the command or path
     * @param when     for {@code destructive}: the boolean argument that makes the call destructive
     * @param rule     for {@code destructive}: the rule id reported with the decision
     * @param reason   for {@code destructive}: what would be lost; {@code {arg}} stands for the argument's value
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Subject(String kind, String argument, String when, String rule, String reason) {
        /** Nothing beyond the tool's mutability. */
        public static final Subject NONE = new Subject("none", null, null, null, null);
        /** A {@code path} argument, when given, is what a team rule is matched against. */
        public static final Subject PATH = path("path");

        public static Subject path(String argument) {
            return new Subject("path", argument, null, null, null);
        }

        public static Subject command(String argument) {
            return new Subject("command", argument, null, null, null);
        }

        public static Subject fileWrite(String argument) {
            return new Subject("file-write", argument, null, null, null);
        }

        public static Subject destructiveWhen(String when, String rule, String reason) {
            return new Subject("destructive", null, when, rule, reason);
        }
    }
}
