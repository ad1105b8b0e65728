package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.Assertions;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** Teams API: default exists, create, conflict, validation. */
@QuarkusTest
class TeamsTest {

    @Test
    void defaultTeamExistsFromTheStart() {
        given().get("/api/v1/teams/default").then().statusCode(200)
                .body("id", equalTo("default")).body("permissionMode", equalTo("default")).body("workspace", equalTo("."));
    }

    @Test
    void createdTeamIsListedAndASecondCreateConflicts() {
        given().contentType("application/json").body("{\"id\":\"alpha\",\"permissionMode\":\"plan\"}")
                .post("/api/v1/teams").then().statusCode(201)
                .header("Location", containsString("/api/v1/teams/alpha"))
                .body("id", equalTo("alpha")).body("permissionMode", equalTo("plan")).body("workspace", equalTo("teams/alpha"));
        given().get("/api/v1/teams").then().statusCode(200).body("id", hasItems("default", "alpha"));
        given().contentType("application/json").body("{\"id\":\"alpha\"}")
                .post("/api/v1/teams").then().statusCode(409).contentType("application/problem+json");
    }

    @Test
    void invalidIdsModesAndWorkspacesAreRefusedWithTheRule() {
        given().contentType("application/json").body("{\"id\":\"Bad_Id\"}")
                .post("/api/v1/teams").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("[a-z0-9][a-z0-9-]{0,62}"));
        given().contentType("application/json").body("{\"id\":\"beta\",\"permissionMode\":\"yolo\"}")
                .post("/api/v1/teams").then().statusCode(400).body("detail", containsString("unknown permissionMode"));
        given().contentType("application/json").body("{\"id\":\"gamma\",\"workspace\":\"../etc\"}")
                .post("/api/v1/teams").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("workspace refused by the tool runner"))
                .body("detail", containsString("(rule: workspace-roots)"));
        given().contentType("application/json").body("{\"id\":\"gamma\",\"workspace\":\"/etc\"}")
                .post("/api/v1/teams").then().statusCode(400).body("detail", containsString("(rule: workspace-roots)"));
        // nothing was created by the refusals
        given().get("/api/v1/teams/gamma").then().statusCode(404);
    }

    @Test
    void aWorkspaceThatIsAFileIsRefusedAndAnExistingTeamIsAConflictBeforeTheRunnerIsAsked() throws Exception {
        Path ws = Path.of(ConfigProvider.getConfig()
                .getValue("cohort.test.workspace", String.class));
        Files.writeString(ws.resolve("not-a-dir.txt"), "x");
        given().contentType("application/json").body("{\"id\":\"delta\",\"workspace\":\"not-a-dir.txt\"}")
                .post("/api/v1/teams").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("(rule: workspace-not-a-directory)"));
        given().contentType("application/json").body("{\"id\":\"default\",\"workspace\":\"elsewhere\"}")
                .post("/api/v1/teams").then().statusCode(409).contentType("application/problem+json");
        Assertions.assertThat(ws.resolve("elsewhere")).doesNotExist();
    }
}
