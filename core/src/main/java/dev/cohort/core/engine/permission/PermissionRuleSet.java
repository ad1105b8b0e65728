package dev.cohort.core.engine.permission;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A team's permission rules as people write them, Claude Code's {@code permissions} object:
 * {@code {"allow": [...], "ask": [...], "deny": [...]}} of rules in {@link PermissionRule}'s syntax. The value the API
 * stores and the settings file holds; {@link #parse} gives the rules the gate matches. Pure.
 *
 * @param allow rules that let a call run without asking
 * @param ask   rules that make a call wait for a person's approval
 * @param deny  rules that refuse a call
 */
public record PermissionRuleSet(List<String> allow, List<String> ask, List<String> deny) {

    /** No rules. */
    public static final PermissionRuleSet EMPTY = new PermissionRuleSet(List.of(), List.of(), List.of());

    /** Rules per list at most: far above any hand-written policy, and every call is matched against all of them. */
    public static final int MAX_RULES = 500;

    /** The three lists' names, in the order they are shown. */
    public static final List<String> LISTS = List.of("allow", "ask", "deny");

    public PermissionRuleSet {
        allow = allow == null ? List.of() : List.copyOf(allow);
        ask = ask == null ? List.of() : List.copyOf(ask);
        deny = deny == null ? List.of() : List.copyOf(deny);
    }

    /** Rules that cannot be used; the message names the list, the position, the rule and why. */
    public static final class InvalidRules extends IllegalArgumentException {
        private final String field;

        InvalidRules(String field, String problem) {
            super(field + " " + problem);
            this.field = field;
        }

        /** Where the problem is, e.g. {@code permissions.deny[0]}. */
        public String field() {
            return field;
        }
    }

    /** {@code true} when no list holds a rule. */
    @JsonIgnore
    public boolean isEmpty() {
        return allow.isEmpty() && ask.isEmpty() && deny.isEmpty();
    }

    /** The rules of both sets, each once, in their order ({@code this} first). */
    public PermissionRuleSet union(PermissionRuleSet other) {
        return new PermissionRuleSet(merged(allow, other.allow), merged(ask, other.ask), merged(deny, other.deny));
    }

    /**
     * The rules to match, deny first (their order does not change a decision).
     *
     * @param origin where they were configured, for the messages ({@code team settings}, {@code .cohort/settings.json})
     * @param field  how messages name this set, e.g. {@code permissions}
     * @throws InvalidRules naming the first rule that cannot be used and why
     */
    public List<PermissionRule> parse(String origin, String field) {
        List<PermissionRule> out = new ArrayList<>();
        add(out, deny, PermissionDecision.Kind.DENY, origin, field + ".deny");
        add(out, ask, PermissionDecision.Kind.ASK, origin, field + ".ask");
        add(out, allow, PermissionDecision.Kind.ALLOW, origin, field + ".allow");
        return List.copyOf(out);
    }

    /** Checks every rule; the same set when all can be used. */
    public PermissionRuleSet validated(String field) {
        parse(null, field);
        return this;
    }

    /**
     * Reads a {@code permissions} object strictly: only {@code allow}, {@code ask} and {@code deny}, each an array of
     * strings (absent or {@code null} = empty), every rule valid.
     *
     * @param node  the object ({@code null} or JSON null = no rules)
     * @param field how messages name it, e.g. {@code permissions}
     * @throws InvalidRules naming the field or rule and why
     */
    public static PermissionRuleSet fromJson(JsonNode node, String field) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return EMPTY;
        }
        if (!node.isObject()) {
            throw new InvalidRules(field, "must be an object {\"allow\": [...], \"ask\": [...], \"deny\": [...]}");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String n = names.next();
            if (!LISTS.contains(n)) {
                throw new InvalidRules(field + "." + n, "is not supported: a permissions object holds allow, ask and"
                        + " deny (the team's mode is its permissionMode)");
            }
        }
        PermissionRuleSet set = new PermissionRuleSet(strings(node.get("allow"), field + ".allow"),
                strings(node.get("ask"), field + ".ask"), strings(node.get("deny"), field + ".deny"));
        return set.validated(field);
    }

    private static List<String> strings(JsonNode list, String field) {
        if (list == null || list.isNull()) {
            return List.of();
        }
        if (!list.isArray()) {
            throw new InvalidRules(field, "must be an array of rules such as [\"Bash(npm test)\"]");
        }
        if (list.size() > MAX_RULES) {
            throw new InvalidRules(field, "holds " + list.size() + " rules; at most " + MAX_RULES);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode r = list.get(i);
            if (!r.isTextual()) {
                throw new InvalidRules(field + "[" + i + "]", "must be a string such as \"Bash(npm test)\", not " + r);
            }
            out.add(r.asText());
        }
        return out;
    }

    private static void add(List<PermissionRule> out, List<String> rules, PermissionDecision.Kind kind, String origin,
            String field) {
        if (rules.size() > MAX_RULES) {
            throw new InvalidRules(field, "holds " + rules.size() + " rules; at most " + MAX_RULES);
        }
        for (int i = 0; i < rules.size(); i++) {
            try {
                out.add(PermissionRule.parse(kind, rules.get(i), origin));
            } catch (PermissionRule.InvalidRule e) {
                throw new InvalidRules(field + "[" + i + "]", e.getMessage());
            }
        }
    }

    private static List<String> merged(List<String> a, List<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
