package dev.cohort.core.engine.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The rule syntax (Claude Code's), table-driven: what each rule matches and why a malformed one is refused. */
class PermissionRuleTest {

    private static final CommandRules.Workspace ROOT = CommandRules.Workspace.relative(null);

    /** The tool runner's catalogue, as a service reads it at start: its tool names are known to the rules. */
    @BeforeAll
    static void readTheCatalogue() {
        assertThat(WorkspaceToolsFixture.catalogue().names()).contains("create_worktree");
    }

    /** A rule, a call (tool, subject, cwd) and whether the rule applies to it as a deny (any part matches). */
    static Stream<Arguments> matches() {
        return Stream.of(
                // Bash: exact, legacy prefix ':*', wildcards, word boundaries
                row("Bash(npm test)", "bash", cmd("npm test"), true),
                row("Bash(npm test)", "bash", cmd("npm  test"), true),
                row("Bash(npm test)", "bash", cmd("npm test --watch"), false),
                row("Bash(npm run test:*)", "bash", cmd("npm run test"), true),
                row("Bash(npm run test:*)", "bash", cmd("npm run test -- --ci"), true),
                row("Bash(npm run test:*)", "bash", cmd("npm run testx"), false),
                row("Bash(curl:*)", "bash", cmd("curl -s https://example.com"), true),
                row("Bash(curl:*)", "bash", cmd("curly braces"), false),
                row("Bash(ls *)", "bash", cmd("ls"), true),
                row("Bash(ls *)", "bash", cmd("ls -la"), true),
                row("Bash(ls *)", "bash", cmd("lsof"), false),
                row("Bash(ls*)", "bash", cmd("lsof"), true),
                row("Bash(git * main)", "bash", cmd("git push origin main"), true),
                row("Bash(git * main)", "bash", cmd("git push origin dev"), false),
                row("Bash", "bash", cmd("anything at all"), true),
                row("Bash(*)", "bash", cmd("anything at all"), true),
                row("bash(make:*)", "bash", cmd("make all"), true),
                // a deny finds the command wherever it runs: compound lines, substitutions, wrappers, sh -c, paths
                row("Bash(curl:*)", "bash", cmd("npm test && curl http://x"), true),
                row("Bash(curl:*)", "bash", cmd("echo $(curl http://x)"), true),
                row("Bash(curl:*)", "bash", cmd("timeout 5 curl http://x"), true),
                row("Bash(curl:*)", "bash", cmd("FOO=1 /usr/bin/curl http://x"), true),
                row("Bash(curl:*)", "bash", cmd("bash -c 'curl http://x'"), true),
                row("Bash(curl:*)", "bash", cmd("sh -lc \"sh -c 'curl x'\""), true),
                row("Bash(curl:*)", "bash", cmd("eval curl x"), true),
                row("Bash(curl:*)", "bash", cmd("echo curl"), false),
                row("Bash(curl:*)", "read_file", new PermissionSubject.Path("curl"), false),
                // Read / Edit: gitignore-style paths relative to the workspace root
                row("Read(./secrets/**)", "read_file", path("secrets/key.pem"), true),
                row("Read(./secrets/**)", "read_file", path("secrets"), true),
                row("Read(./secrets/**)", "grep", path("./secrets/deep/x"), true),
                row("Read(./secrets/**)", "glob", path("secrets"), true),
                row("Read(./secrets/**)", "read_file", path("src/secrets/key.pem"), false),
                row("Read(./secrets/**)", "read_file", path("src/../secrets/key.pem"), true),
                row("Read(./secrets/**)", "read_file", path("/srv/ws/secrets/key.pem"), true),
                row("Read(./secrets/**)", "write_file", fileWrite("secrets/key.pem"), false),
                row("Read(*.env)", "read_file", path(".env.local"), false),
                row("Read(*.env)", "read_file", path("config/prod.env"), true),
                row("Read(.env)", "read_file", path("apps/web/.env"), true),
                row("Read(/.env)", "read_file", path("apps/web/.env"), false),
                row("Read(/.env)", "read_file", path(".env"), true),
                row("Read(secrets/)", "read_file", path("secrets/a/b"), true),
                row("Read(docs/*.md)", "read_file", path("docs/a.md"), true),
                row("Read(docs/*.md)", "read_file", path("docs/sub/a.md"), false),
                row("Read(docs/**/*.md)", "read_file", path("docs/sub/deeper/a.md"), true),
                row("Read(docs/**/*.md)", "read_file", path("docs/a.md"), true),
                row("Read(file?.txt)", "read_file", path("file1.txt"), true),
                row("Read(file[0-9].txt)", "read_file", path("file7.txt"), true),
                row("Read(file[!0-9].txt)", "read_file", path("file7.txt"), false),
                row("Read(cohort-output/**)", "read_file", path("cohort-output://abc"), false),
                row("Edit(src/**)", "write_file", fileWrite("src/app.js"), true),
                row("Edit(src/**)", "edit_file", fileWrite("src/deep/app.js"), true),
                row("Edit(src/**)", "write_file", fileWrite("docs/app.js"), false),
                row("Edit(src/**)", "read_file", path("src/app.js"), false),
                row("Write(src/**)", "edit_file", fileWrite("src/app.js"), true),
                row("Edit(*.ts)", "write_file", fileWrite("a/b/c.ts"), true),
                row("Edit", "write_file", fileWrite("anything"), true),
                row("Edit(./)", "write_file", fileWrite("anything/at/all"), true),
                row("Glob(src/**)", "glob", path("src"), true),
                row("Glob(src/**)", "grep", path("src"), false),
                row("read_file(secrets/**)", "read_file", path("secrets/x"), true),
                // Cohort's own tools and MCP tools, by name
                row("schedule_cron", "schedule_cron", new PermissionSubject.Persistent("model-cron-job", "a job"), true),
                row("schedule_cron", "cancel_cron", PermissionSubject.NONE, false),
                row("create_worktree", "create_worktree", PermissionSubject.NONE, true),
                row("mcp__github__create_issue", "mcp__github__create_issue", PermissionSubject.NONE, true),
                row("mcp__github__create_issue", "mcp__github__close_issue", PermissionSubject.NONE, false),
                row("mcp__github__*", "mcp__github__close_issue", PermissionSubject.NONE, true),
                row("mcp__github", "mcp__github__close_issue", PermissionSubject.NONE, true),
                row("mcp__github", "mcp__gitlab__close_issue", PermissionSubject.NONE, false));
    }

    @ParameterizedTest(name = "{0} on {1} {2} → {3}")
    @MethodSource("matches")
    void eachRuleMatchesWhatItSays(String rule, String tool, PermissionSubject subject, boolean matches) {
        PermissionPolicy p = new PermissionPolicy(List.of(PermissionRule.parse(PermissionDecision.Kind.DENY, rule,
                null)));
        PermissionDecision d = p.decide(tool, subject, ROOT);
        assertThat(d != null && d.kind() == PermissionDecision.Kind.DENY).as(rule + " on " + subject).isEqualTo(matches);
    }

    /** A malformed rule and the reason its message gives. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("", "a rule is empty"),
                Arguments.of("   ", "a rule is empty"),
                Arguments.of("Bash(npm test", "the specifier misses its closing ')'"),
                Arguments.of("Bash(npm test) x", "nothing may follow the specifier's closing ')'"),
                Arguments.of("Bash)", "a ')' without its '('"),
                Arguments.of("Bash()", "the specifier is empty; write 'Bash' alone for every call"),
                Arguments.of("Bash(:*)", "':*' needs a command before it"),
                Arguments.of("Bash(npm:*test)", "':*' may only end the specifier"),
                Arguments.of("WebFetch(domain:example.com)", "Cohort has no tool 'WebFetch'"),
                Arguments.of("shedule_cron", "Cohort has no tool 'shedule_cron'"),
                Arguments.of("schedule_cron(x)", "'schedule_cron' takes no specifier"),
                Arguments.of("mcp__github__x(y)", "an MCP rule takes no specifier"),
                Arguments.of("mcp__", "an MCP rule is mcp__<server>"),
                Arguments.of("Read(//etc/passwd)", "Cohort's file tools reach only the team's workspace"),
                Arguments.of("Read(~/.ssh/**)", "Cohort's file tools reach only the team's workspace"),
                Arguments.of("Edit(../other/**)", "'..' cannot climb out of the workspace"),
                Arguments.of("Read(file[0-9.txt)", "'[' opens a character class without its ']'"),
                Arguments.of("Bash(echo\nhi)", "contains a control character"),
                Arguments.of("9lives", "'9lives' is not a tool name"),
                Arguments.of("Bash(" + "x".repeat(PermissionRule.MAX_LENGTH) + ")", "longer than 1000 characters"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedRuleIsRefusedNamingTheRuleAndWhy(String rule, String why) {
        assertThatThrownBy(() -> PermissionRule.parse(PermissionDecision.Kind.ALLOW, rule, null))
                .isInstanceOf(PermissionRule.InvalidRule.class)
                .hasMessageContaining(why)
                .satisfies(e -> assertThat(((PermissionRule.InvalidRule) e).reason()).contains(why));
        if (!rule.isBlank() && rule.length() < 100 && !rule.contains("\n")) {
            assertThatThrownBy(() -> PermissionRule.parse(PermissionDecision.Kind.ALLOW, rule, null))
                    .hasMessageStartingWith("'" + rule + "': ");
        }
    }

    @Test
    void aRuleSetFromJsonNamesTheListPositionAndRuleOfTheFirstProblem() {
        assertThatThrownBy(() -> PermissionRuleSet.fromJson(json("""
                {"allow": ["Bash(npm test)"], "deny": ["Bash(curl:*)", "Bash(rm"]}"""), "permissions"))
                .isInstanceOf(PermissionRuleSet.InvalidRules.class)
                .hasMessage("permissions.deny[1] 'Bash(rm': the specifier misses its closing ')'");
        assertThatThrownBy(() -> PermissionRuleSet.fromJson(json("{\"allow\": \"Bash\"}"), "permissions"))
                .hasMessageContaining("permissions.allow must be an array");
        assertThatThrownBy(() -> PermissionRuleSet.fromJson(json("{\"ask\": [3]}"), "permissions"))
                .hasMessageContaining("permissions.ask[0] must be a string");
        assertThatThrownBy(() -> PermissionRuleSet.fromJson(json("{\"defaultMode\": \"plan\"}"), "permissions"))
                .hasMessageContaining("permissions.defaultMode is not supported");
        assertThatThrownBy(() -> PermissionRuleSet.fromJson(json("[]"), "permissions"))
                .hasMessageContaining("permissions must be an object");

        PermissionRuleSet ok = PermissionRuleSet.fromJson(json("""
                {"allow": ["Bash(npm test)"], "ask": ["Edit(src/**)"], "deny": ["Bash(curl:*)"]}"""), "permissions");
        assertThat(ok).isEqualTo(new PermissionRuleSet(List.of("Bash(npm test)"), List.of("Edit(src/**)"),
                List.of("Bash(curl:*)")));
        assertThat(ok.parse("team settings", "permissions")).extracting(PermissionRule::describe)
                .containsExactly("deny Bash(curl:*)", "ask Edit(src/**)", "allow Bash(npm test)");
        assertThat(PermissionRuleSet.fromJson(null, "permissions")).isEqualTo(PermissionRuleSet.EMPTY);
        assertThat(ok.union(new PermissionRuleSet(List.of("Bash(npm test)", "Bash(make)"), null, null)).allow())
                .containsExactly("Bash(npm test)", "Bash(make)");
    }

    private static JsonNode json(String s) {
        return Json.read(s, JsonNode.class);
    }

    private static Arguments row(String rule, String tool, PermissionSubject subject, boolean matches) {
        return Arguments.of(rule, tool, subject, matches);
    }

    private static PermissionSubject cmd(String command) {
        return new PermissionSubject.Command(command);
    }

    private static PermissionSubject path(String p) {
        return new PermissionSubject.Path(p);
    }

    private static PermissionSubject fileWrite(String p) {
        return new PermissionSubject.FileWrite(p);
    }
}
