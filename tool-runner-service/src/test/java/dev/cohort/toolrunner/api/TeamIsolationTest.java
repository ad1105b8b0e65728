package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No team reaches another team's workspace. Team {@code default} works in the workspace root, and the other teams'
 * workspaces ({@code <teams-dir>/<team>}, or a team's own directory) may lie inside it: its commands must not see
 * them and its file tools must refuse them, whatever the spelling (relative, absolute, {@code ..}, a symbolic link
 * its own command made). Each vector is tried the way a model would; every one that reaches the other team is
 * reported, so a regression names all the ways it escapes.
 */
@QuarkusTest
class TeamIsolationTest {
    private static final String DEFAULT = "default";

    @BeforeEach
    void sandboxed() {
        Assumptions.assumeFalse("none".equals(System.getenv("COHORT_SANDBOX")), "COHORT_SANDBOX=none: nothing is confined");
    }

    private static String id() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    /** A team with a secret file in its workspace, written by its own command; returns the workspace's real path. */
    private static Path teamWithSecret(String team, String secret) throws Exception {
        ToolCallResult w = bash(team, "echo " + secret + " > secret.txt && echo ok");
        assertThat(w.output()).as("%s", w).isEqualTo("ok\n");
        return Calls.workspace(team).toRealPath();
    }

    private static ToolCallResult readOnly(String tool, String team, Map<String, Object> args) {
        ToolCallRequest req = new ToolCallRequest(team, "lead", "call_" + UUID.randomUUID(), null, args, true);
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .contentType(ContentType.JSON).body(Json.write(req)).post("/internal/v1/tools/" + tool)
                .then().statusCode(200).extract().asString();
        return Json.read(body, ToolCallResult.class);
    }

    private static String said(ToolCallResult r) {
        return (r.output() == null ? "" : r.output()) + (r.error() == null ? "" : r.error());
    }

    @Test
    void teamDefaultsCommandsNeitherSeeNorReadNorWriteAnotherTeamsWorkspace() throws Exception {
        String other = newTeam();
        String secret = "secret-" + id();
        Path ws = teamWithSecret(other, secret);
        String n = id();
        String rel = "teams/" + other;
        bash(DEFAULT, "mkdir -p sub-" + n + " && ln -s " + rel + " link-" + n + " && ln -s " + ws + " abslink-" + n);

        SoftAssertions soft = new SoftAssertions();
        String[] reads = {
            "cat " + rel + "/secret.txt",
            "cat " + ws + "/secret.txt",
            "cat sub-" + n + "/../" + rel + "/secret.txt",
            "cat link-" + n + "/secret.txt",
            "cat abslink-" + n + "/secret.txt",
            "ls -la " + rel,
            "grep -r " + secret + " .",
            "cd " + rel + " && cat secret.txt",
        };
        for (String c : reads) {
            ToolCallResult r = bash(DEFAULT, c + " 2>&1; true");
            soft.assertThat(said(r)).as("team default ran: %s", c).doesNotContain(secret);
        }
        // listings do not name the team (a read above may echo the path it was given in its error)
        for (String c : new String[] {"ls -A teams", "ls -AR .", "find . -name secret.txt",
            "find " + Calls.root().toRealPath() + " -name secret.txt"}) {
            ToolCallResult r = bash(DEFAULT, c + " 2>&1; true");
            soft.assertThat(said(r)).as("team default ran: %s", c).doesNotContain(other);
        }
        String[] writes = {
            "echo pwned > " + rel + "/planted-1",
            "echo pwned > " + ws + "/planted-2",
            "echo pwned > link-" + n + "/planted-3",
            "mkdir -p " + rel + " && echo pwned > " + rel + "/planted-4",
            "echo pwned >> " + rel + "/secret.txt",
            "rm -f " + rel + "/secret.txt",
            "mv teams teams-" + n,
        };
        for (String c : writes) {
            bash(DEFAULT, c + " 2>&1; true");
        }
        Path movedAside = Calls.root().resolve("teams-" + n);
        boolean moved = Files.isDirectory(movedAside);
        if (moved) {
            Files.move(movedAside, Calls.root().resolve("teams")); // back, for the checks below and the other tests
        }
        soft.assertThat(moved).as("team default moved the teams directory aside").isFalse();
        for (int i = 1; i <= 4; i++) {
            soft.assertThat(ws.resolve("planted-" + i)).as("team default wrote planted-%d into team %s", i, other)
                    .doesNotExist();
        }
        soft.assertThat(ws.resolve("secret.txt")).as("team %s's file", other).hasContent(secret);
        soft.assertAll();
    }

    @Test
    void teamDefaultsFileToolsRefuseAnotherTeamsWorkspaceHoweverItIsSpelled() throws Exception {
        String other = newTeam();
        String secret = "secret-" + id();
        Path ws = teamWithSecret(other, secret);
        String n = id();
        String rel = "teams/" + other;
        // the links are made by team default's own command, as a model would make them
        bash(DEFAULT, "mkdir -p sub-" + n + " && ln -s " + rel + " link-" + n + " && ln -s " + ws + " abslink-" + n
                + " && ln -s teams teamslink-" + n);

        SoftAssertions soft = new SoftAssertions();
        // glob and grep first (before a write could change the file): they list nothing of it, from the root or aimed
        // at it
        ToolCallResult g = call("glob", DEFAULT, args("pattern", "**/secret.txt"));
        soft.assertThat(said(g)).as("glob **/secret.txt").doesNotContain(other);
        ToolCallResult g2 = call("glob", DEFAULT, args("pattern", "teams/**"));
        soft.assertThat(said(g2)).as("glob teams/**").doesNotContain(other);
        for (String p : new String[] {rel, ws.toString(), "link-" + n, "teams", "teamslink-" + n}) {
            ToolCallResult gp = call("glob", DEFAULT, args("pattern", "**", "path", p));
            soft.assertThat(said(gp)).as("glob in %s", p).doesNotContain("secret.txt");
            ToolCallResult rp = call("grep", DEFAULT, args("pattern", secret, "path", p));
            soft.assertThat(said(rp)).as("grep in %s", p).doesNotContain(secret + "\n").doesNotContain(":1:");
        }
        ToolCallResult fromRoot = call("grep", DEFAULT, args("pattern", secret));
        soft.assertThat(said(fromRoot)).as("grep from the root").doesNotContain(other);
        soft.assertThat(said(call("grep", DEFAULT, args("pattern", secret, "path", "teams"))))
                .as("grep in teams").doesNotContain(other);
        String[] spellings = {rel + "/secret.txt", ws + "/secret.txt", "sub-" + n + "/../" + rel + "/secret.txt",
            "./teams/../" + rel + "/secret.txt", "link-" + n + "/secret.txt", "abslink-" + n + "/secret.txt",
            "teamslink-" + n + "/" + other + "/secret.txt"};
        for (String p : spellings) {
            ToolCallResult r = call("read_file", DEFAULT, args("path", p));
            soft.assertThat(said(r)).as("read_file %s", p).doesNotContain(secret).contains("rule: other-team-workspace");
            ToolCallResult e = call("edit_file", DEFAULT, args("path", p, "old_text", secret, "new_text", "pwned"));
            soft.assertThat(said(e)).as("edit_file %s", p).contains("rule: other-team-workspace");
        }
        String[] targets = {rel + "/planted-1", ws + "/planted-2", "link-" + n + "/planted-3",
            "sub-" + n + "/../" + rel + "/planted-4", "teamslink-" + n + "/" + other + "/planted-5",
            rel + "/newdir/planted-6"};
        for (String p : targets) {
            ToolCallResult w = call("write_file", DEFAULT, args("path", p, "content", "pwned"));
            soft.assertThat(said(w)).as("write_file %s", p).contains("rule: other-team-workspace");
        }
        for (int i = 1; i <= 5; i++) {
            soft.assertThat(ws.resolve("planted-" + i)).as("write_file planted-%d into team %s", i, other).doesNotExist();
        }
        soft.assertThat(ws.resolve("newdir")).as("write_file made a directory in team %s", other).doesNotExist();
        soft.assertThat(ws.resolve("secret.txt")).as("team %s's file", other).hasContent(secret);

        soft.assertAll();
    }

    @Test
    void aTeamsOwnWorkspaceInsideTheRootIsHiddenFromTeamDefaultToo() throws Exception {
        String own = newTeam();
        String n = id();
        String dir = "iso-" + n + "/" + own;
        given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body(Json.write(Map.of("workspace", dir))).put("/internal/v1/teams/" + own + "/workspace")
                .then().statusCode(200);
        String secret = "own-secret-" + id();
        assertThat(bash(own, "echo " + secret + " > s.txt && echo ok").output()).isEqualTo("ok\n");
        Path ws = Calls.root().resolve(dir).toRealPath();

        SoftAssertions soft = new SoftAssertions();
        for (String c : new String[] {"cat " + dir + "/s.txt", "cat " + ws + "/s.txt", "echo pwned > " + dir + "/planted-1",
            "grep -r " + secret + " iso-" + n}) {
            soft.assertThat(said(bash(DEFAULT, c + " 2>&1; true"))).as("team default ran: %s", c).doesNotContain(secret);
        }
        for (String c : new String[] {"ls -A iso-" + n + "/" + own, "find iso-" + n}) {
            soft.assertThat(said(bash(DEFAULT, c + " 2>&1; true"))).as("team default ran: %s", c).doesNotContain("s.txt");
        }
        soft.assertThat(said(call("read_file", DEFAULT, args("path", dir + "/s.txt")))).as("read_file")
                .doesNotContain(secret).contains("rule: other-team-workspace");
        soft.assertThat(said(call("write_file", DEFAULT, args("path", dir + "/planted-2", "content", "x"))))
                .as("write_file").contains("rule: other-team-workspace");
        soft.assertThat(said(call("grep", DEFAULT, args("pattern", secret)))).as("grep").doesNotContain(own);
        soft.assertThat(said(call("glob", DEFAULT, args("pattern", "iso-" + n + "/**")))).as("glob").doesNotContain("s.txt");
        // moving a directory above it aside would show it at another place: a directory above is held in place
        bash(DEFAULT, "mv iso-" + n + " moved-" + n + " 2>&1; true");
        soft.assertThat(said(bash(DEFAULT, "cat moved-" + n + "/" + own + "/s.txt 2>&1; true")))
                .as("read after moving its parent aside").doesNotContain(secret);
        soft.assertThat(ws.resolve("planted-1")).doesNotExist();
        soft.assertThat(ws.resolve("planted-2")).doesNotExist();
        soft.assertThat(ws.resolve("s.txt")).hasContent(secret);
        soft.assertAll();
    }

    @Test
    void teamDefaultReadOnlyInAWorktreeOrThroughTheRunnersGitCannotReachAnotherTeamEither() throws Exception {
        String other = newTeam();
        String secret = "secret-" + id();
        Path ws = teamWithSecret(other, secret);
        String n = id();
        SoftAssertions soft = new SoftAssertions();

        // plan mode: the root is bound read-only, the other teams must stay hidden under it
        for (String c : new String[] {"cat teams/" + other + "/secret.txt", "cat " + ws + "/secret.txt"}) {
            ToolCallResult r = readOnly("bash", DEFAULT, args("command", c + " 2>&1; true"));
            soft.assertThat(said(r)).as("read-only team default ran: %s", c).doesNotContain(secret);
        }
        soft.assertThat(said(readOnly("bash", DEFAULT, args("command", "ls -A teams 2>&1; true"))))
                .as("read-only team default ran: ls -A teams").doesNotContain(other);
        soft.assertThat(said(readOnly("read_file", DEFAULT, args("path", "teams/" + other + "/secret.txt"))))
                .as("read-only read_file").doesNotContain(secret).contains("rule: other-team-workspace");

        // the runner's own git in team default's repository: a smudge filter the model set runs in the checkout
        String script = "iso-filter-" + n + ".sh";
        assertThat(call("write_file", DEFAULT, args("path", script, "content", "#!/bin/sh\necho pwned > '" + ws
                + "/git-planted'\ncat '" + ws + "/secret.txt' > \"$HOME/git-read-" + n + "\"\nexec cat\n")).error()).isNull();
        String filter = "iso" + n;
        String setUp = "chmod +x " + script + " && printf '*.iso" + n + " filter=" + filter + "\\n' >> .gitattributes"
                + " && echo alpha > a.iso" + n + " && git add .gitattributes a.iso" + n + " && git commit -qm iso-" + n
                + " && git config filter." + filter + ".smudge \"$PWD/" + script + "\" && git config filter." + filter
                + ".clean cat && echo ok";
        assertThat(bash(DEFAULT, setUp).output()).isEqualTo("ok\n");
        try {
            call("create_worktree", DEFAULT, args("name", "iso-" + n));
            ToolCallResult inWt = call("bash", DEFAULT, "lead", "wt:iso-" + n, args("command",
                    "cat " + ws + "/secret.txt 2>&1; true"));
            soft.assertThat(said(inWt)).as("a worktree of team default").doesNotContain(secret);
            ToolCallResult lsWt = call("bash", DEFAULT, "lead", "wt:iso-" + n, args("command",
                    "ls -A " + Calls.root().toRealPath().resolve("teams") + " 2>&1; true"));
            soft.assertThat(said(lsWt)).as("a worktree of team default lists teams").doesNotContain(other);
            call("remove_worktree", DEFAULT, args("name", "iso-" + n, "discard_changes", true));
        } finally {
            bash(DEFAULT, "git config --unset filter." + filter + ".smudge; git config --unset filter." + filter
                    + ".clean; true");
        }
        soft.assertThat(ws.resolve("git-planted")).as("the runner's git wrote into team %s", other).doesNotExist();
        Path home = Calls.stateDir().resolve("teams").resolve(DEFAULT).resolve("home");
        if (Files.exists(home.resolve("git-read-" + n))) {
            soft.assertThat(Files.readString(home.resolve("git-read-" + n))).as("the runner's git read team %s", other)
                    .doesNotContain(secret);
        }
        soft.assertAll();
    }

    @Test
    void anotherTeamSeesNeitherTeamDefaultsRootNorAThirdTeam() throws Exception {
        String n = id();
        String rootSecret = "root-secret-" + n;
        assertThat(call("write_file", DEFAULT, args("path", "root-" + n + ".txt", "content", rootSecret)).error()).isNull();
        String third = newTeam();
        String thirdSecret = "third-secret-" + n;
        Path thirdWs = teamWithSecret(third, thirdSecret);
        String other = newTeam();
        bash(other, "true");
        Path root = Calls.root().toRealPath();

        SoftAssertions soft = new SoftAssertions();
        for (String c : new String[] {"cat " + root + "/root-" + n + ".txt", "cat ../../root-" + n + ".txt",
            "cat ../" + third + "/secret.txt", "cat " + thirdWs + "/secret.txt", "echo pwned > " + thirdWs + "/planted",
            "echo pwned > " + root + "/planted-" + n, "grep -r secret- " + root}) {
            ToolCallResult r = bash(other, c + " 2>&1; true");
            soft.assertThat(said(r)).as("team %s ran: %s", other, c).doesNotContain(rootSecret).doesNotContain(thirdSecret);
        }
        for (String c : new String[] {"ls -A " + root, "ls -A ..", "ls -A ../..", "find " + root + " -name '*.txt'"}) {
            ToolCallResult r = bash(other, c + " 2>&1; true");
            soft.assertThat(said(r)).as("team %s ran: %s", other, c).doesNotContain("root-" + n).doesNotContain(third);
        }
        for (String p : new String[] {"../" + third + "/secret.txt", thirdWs + "/secret.txt", "../../root-" + n + ".txt",
            root + "/root-" + n + ".txt"}) {
            soft.assertThat(said(call("read_file", other, args("path", p)))).as("read_file %s", p)
                    .doesNotContain(rootSecret).doesNotContain(thirdSecret).contains("rule: workspace-containment");
        }
        soft.assertThat(thirdWs.resolve("planted")).doesNotExist();
        soft.assertThat(root.resolve("planted-" + n)).doesNotExist();
        soft.assertAll();
    }
}
