package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A team's own workspace: checked against {@code workspace-roots} (here the default, the runner's root), prepared
 * (directory, git), recorded, and then used by every tool call of the team.
 */
@QuarkusTest
class TeamWorkspaceTest {

    private static ValidatableResponse assign(String team, String workspace) {
        return given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body(Json.write(Map.of("workspace", workspace))).put("/internal/v1/teams/" + team + "/workspace")
                .then();
    }

    @Test
    void aTeamOnAnExistingDirectorySeesItsFilesAndItIsGitInitialisedWithoutCommittingThem() throws Exception {
        String team = newTeam();
        Path dir = Files.createDirectories(Calls.root().resolve("projects").resolve(team));
        Files.writeString(dir.resolve("hello.txt"), "hello from the project\n");

        assign(team, "projects/" + team).statusCode(200).body("team", equalTo(team))
                .body("workspace", equalTo(dir.toRealPath().toString()));

        assertThat(call("read_file", team, args("path", "hello.txt")).output()).isEqualTo("     1\thello from the project\n");
        assertThat(bash(team, "pwd; git rev-parse --show-toplevel; git status --porcelain").output())
                .isEqualTo(dir.toRealPath() + "\n" + dir.toRealPath() + "\n?? hello.txt\n");
        assertThat(Files.exists(Calls.workspace(team))).isFalse(); // not the teams/<id> default
        // asking again for the same directory (absolute this time) answers the same
        assign(team, dir.toString()).statusCode(200).body("workspace", equalTo(dir.toRealPath().toString()));
    }

    @Test
    void aMissingDirectoryInsideTheRootIsCreated() {
        String team = newTeam();
        assign(team, "new-projects/" + team).statusCode(200);
        assertThat(Calls.root().resolve("new-projects").resolve(team).resolve(".git")).isDirectory();
        assertThat(bash(team, "basename \"$PWD\"").output()).isEqualTo(team + "\n");
    }

    @Test
    void aDirectoryOutsideTheAllowedRootsIsRefusedNamingTheRule() throws Exception {
        Path outside = Files.createTempDirectory("cohort-outside");
        String team = newTeam();
        assign(team, outside.toString()).statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("which is not inside an allowed root"))
                .body("detail", containsString("(rule: workspace-roots)"));
        assign(team, "../outside").statusCode(400).body("detail", containsString("(rule: workspace-roots)"));
        // a link inside the root that points out is judged by where it points
        Files.createSymbolicLink(Calls.root().resolve("link-" + team), outside);
        assign(team, "link-" + team).statusCode(400).body("detail", containsString("(rule: workspace-roots)"));
        assign(team, "link-" + team + "/deeper").statusCode(400).body("detail", containsString("(rule: workspace-roots)"));
        assertThat(outside.resolve("deeper")).doesNotExist();
        // nothing was recorded: the team still gets the default workspace
        assertThat(bash(team, "pwd").output()).isEqualTo(Calls.workspace(team) + "\n");
    }

    @Test
    void aFileTheStateDirectoryAndTheDefaultTeamAreRefusedNamingTheRule() throws Exception {
        String team = newTeam();
        Files.writeString(Calls.root().resolve("plain-" + team + ".txt"), "x");
        assign(team, "plain-" + team + ".txt").statusCode(400)
                .body("detail", containsString("exists and is not a directory (rule: workspace-not-a-directory)"));
        assign(team, "").statusCode(400).body("detail", containsString("(rule: workspace-path)"));
        assign("default", "projects").statusCode(400).body("detail", containsString("(rule: default-team)"));
        assign("Bad Team", "projects").statusCode(400).body("detail", containsString("team must match"));
    }

    @Test
    void aTeamsWorkspaceIsSetOnceAndAnotherDirectoryIsAConflict() throws Exception {
        String team = newTeam();
        assign(team, "first/" + team).statusCode(200);
        assign(team, "second/" + team).statusCode(409).contentType("application/problem+json")
                .body("detail", containsString("already works in " + Calls.root().toRealPath().resolve("first").resolve(team)));
        assertThat(bash(team, "pwd").output()).isEqualTo(Calls.root().toRealPath().resolve("first").resolve(team) + "\n");
    }

    @Test
    void aSymbolicLinkPlantedAtANewTeamsDirectoryIsRefusedAndItsTargetIsUntouched() throws Exception {
        Path target = Files.createTempDirectory("cohort-link-target");
        String team = newTeam();
        Files.createDirectories(Calls.root().resolve("teams"));
        Files.createSymbolicLink(Calls.workspace(team), target);

        ToolCallResult r = bash(team, "touch planted");
        assertThat(r.error()).contains("(rule: workspace-link)");
        assertThat(target.resolve(".git")).doesNotExist();
        assertThat(target.resolve("planted")).doesNotExist();
    }

    @Test
    void aRecordedWorkspaceReplacedByASymbolicLinkIsRefused() throws Exception {
        String team = newTeam();
        Path dir = Calls.root().resolve("moved").resolve(team);
        assign(team, "moved/" + team).statusCode(200);
        assertThat(bash(team, "pwd").output()).isEqualTo(dir.toRealPath() + "\n");

        Path elsewhere = Files.createDirectories(Calls.root().resolve("elsewhere-" + team));
        Files.move(dir, Calls.root().resolve("moved").resolve(team + "-aside"));
        Files.createSymbolicLink(dir, elsewhere);

        ToolCallResult r = bash(team, "touch planted");
        assertThat(r.error()).contains("(rule: workspace-moved)");
        assertThat(elsewhere.resolve("planted")).doesNotExist();
        assertThat(elsewhere.resolve(".git")).doesNotExist();
    }

    @Test
    void aWorkspaceOverlappingTheRootTheTeamsDirectoryOrAnotherTeamIsRefusedNamingTheRule() throws Exception {
        String other = newTeam();
        assign(other, "shared/" + other).statusCode(200);
        String team = newTeam();
        assign(team, ".").statusCode(400).body("detail", containsString("(rule: workspace-overlap)"));
        assign(team, "teams").statusCode(400).body("detail", containsString("(rule: workspace-overlap)"));
        assign(team, "teams/" + other).statusCode(400).body("detail", containsString("(rule: workspace-overlap)"));
        assign(team, "shared/" + other + "/sub").statusCode(400)
                .body("detail", containsString("(rule: workspace-overlap)"));
        assign(team, "shared").statusCode(400).body("detail", containsString("(rule: workspace-overlap)"));
        assertThat(Calls.root().resolve("shared").resolve(other).resolve("sub")).doesNotExist();
        // nothing was recorded: the team still gets the default workspace
        assertThat(bash(team, "pwd").output()).isEqualTo(Calls.workspace(team).toRealPath() + "\n");
    }

    @Test
    void theInternalEndpointNeedsTheToken() {
        given().contentType(ContentType.JSON).body("{\"workspace\":\"x\"}").put("/internal/v1/teams/t1/workspace")
                .then().statusCode(401);
    }
}
