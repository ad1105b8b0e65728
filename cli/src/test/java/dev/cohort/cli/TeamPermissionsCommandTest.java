package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cohort team permissions}: the options as the PUT body, and the answer of lead-service as a table. */
class TeamPermissionsCommandTest {

    private static JsonNode json(String s) throws Exception {
        return Json.MAPPER.readTree(s);
    }

    @Test
    void setReplacesTheTeamsRulesAddAndRemoveChangeTheCurrentOnes() throws Exception {
        assertThat(TeamCommand.Permissions.body(null, List.of("allow=Bash(npm test)", "deny=Bash(curl:*)",
                "ASK = Edit(src/**)", "allow=Bash(npm test)"), List.of(), List.of()))
                .isEqualTo(Map.of("allow", List.of("Bash(npm test)"), "ask", List.of("Edit(src/**)"),
                        "deny", List.of("Bash(curl:*)")));
        JsonNode current = json("""
                {"allow": ["Bash(npm test)"], "ask": [], "deny": ["Bash(curl:*)"],
                 "settingsFile": {"path": ".cohort/settings.json", "deny": ["Read(./secrets/**)"]}}""");
        // the settings file's rules are not the team's: they never go into the body
        assertThat(TeamCommand.Permissions.body(current, List.of(), List.of("ask=Edit(src/**)"),
                List.of("Bash(curl:*)"))).isEqualTo(Map.of("allow", List.of("Bash(npm test)"),
                        "ask", List.of("Edit(src/**)"), "deny", List.of()));
        // --clear (no current, nothing set): every list empty
        assertThat(TeamCommand.Permissions.body(null, List.of(), List.of(), List.of()))
                .isEqualTo(Map.of("allow", List.of(), "ask", List.of(), "deny", List.of()));
    }

    @Test
    void aBadOptionIsRefusedNamingIt() {
        assertThatThrownBy(() -> TeamCommand.Permissions.body(null, List.of("block=Bash(curl:*)"), List.of(), List.of()))
                .hasMessage("--set block=Bash(curl:*): expected KIND=RULE with KIND allow, ask or deny, e.g."
                        + " --set 'deny=Bash(curl:*)'");
        assertThatThrownBy(() -> TeamCommand.Permissions.body(null, List.of(), List.of("Bash(curl:*)"), List.of()))
                .hasMessageStartingWith("--add Bash(curl:*): expected KIND=RULE");
        assertThatThrownBy(() -> TeamCommand.Permissions.body(null, List.of(), List.of(), List.of("Bash(ls)")))
                .hasMessage("--remove Bash(ls): the team has no such rule of its own");
    }

    @Test
    void aBadSetExitsBeforeAnyRequestSayingWhy() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            // no lead-service at this URL: a request would say "cannot reach"; the refusal of the option comes first
            code = new CommandLine(new Main()).execute("team", "permissions", "--url", "http://127.0.0.1:1", "--set",
                    "nope=Bash");
        } finally {
            System.setErr(old);
        }
        assertThat(code).isEqualTo(ApiCommand.REQUEST_FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--set nope=Bash: expected KIND=RULE")
                .doesNotContain("cannot reach");
    }

    @Test
    void theTableListsEachRuleDenyFirstWithWhereItComesFromAndTheFilesProblem() throws Exception {
        JsonNode answer = json("""
                {"team": "default", "allow": ["Bash(npm test)"], "ask": ["Edit(src/**)"], "deny": ["Bash(curl:*)"],
                 "settingsFile": {"path": ".cohort/settings.json", "allow": [], "ask": [],
                   "deny": ["Read(./secrets/**)"],
                   "error": "invalid .cohort/settings.json: permissions.deny[1] 'Bash(rm': the specifier misses its closing ')'\\u001b[2J"},
                 "inForce": {}}""");
        assertThat(TeamCommand.Permissions.table(answer)).containsExactly(
                "DECISION  FROM                   RULE",
                "deny      team                   Bash(curl:*)",
                "deny      .cohort/settings.json  Read(./secrets/**)",
                "ask       team                   Edit(src/**)",
                "allow     team                   Bash(npm test)",
                ".cohort/settings.json: invalid .cohort/settings.json: permissions.deny[1] 'Bash(rm': the specifier"
                        + " misses its closing ')'^[[2J");
        assertThat(TeamCommand.Permissions.table(json("{\"allow\": [], \"settingsFile\": {\"path\": \"x\"}}")))
                .containsExactly("DECISION  FROM  RULE", "(no rules: the team's permission mode alone decides)");
    }
}
