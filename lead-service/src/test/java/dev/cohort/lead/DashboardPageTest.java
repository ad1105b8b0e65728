package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's server side in this module's one boot (open API: no token in the test profile): the page and its
 * assets at {@code /} and {@code /ui/}, the session endpoint's answers and refusals, the cron proxy's refusals. The
 * logged-in browser scenario with a token is cli's {@code DashboardBrowserIT}.
 */
@QuarkusTest
class DashboardPageTest {

    @Test
    void thePageAndItsAssetsAreServedFromTheLeadItself() {
        given().get("/").then().statusCode(200).contentType(containsString("text/html"))
                .body(containsString("<title>Cohort dashboard</title>"), containsString("src=\"/ui/app.js\""));
        given().get("/ui/app.js").then().statusCode(200).body(containsString("new EventSource("));
        given().get("/ui/app.css").then().statusCode(200).body(containsString(":focus-visible"));
    }

    @Test
    void withoutATokenTheSessionSaysNoLoginIsNeededAndHandsOutNoCookie() {
        given().get("/api/v1/session").then().statusCode(200).body("required", equalTo(false)).body("authenticated", equalTo(true));
        given().contentType("application/json").body("{\"token\":\"anything\"}").post("/api/v1/session")
                .then().statusCode(200).body("required", equalTo(false)).header("Set-Cookie", Matchers.nullValue());
        given().delete("/api/v1/session").then().statusCode(204).header("Set-Cookie", containsString("Max-Age=0"));
    }

    @Test
    void aLoginWithoutATokenFieldIsABadRequest() {
        given().contentType("application/json").body("{}").post("/api/v1/session")
                .then().statusCode(400).contentType(containsString("application/problem+json"))
                .body("detail", containsString("{\"token\""));
        given().contentType("application/json").body("{\"token\":\"  \"}").post("/api/v1/session").then().statusCode(400);
    }

    @Test
    void aCronWithoutScheduleOrPromptIsABadRequest() {
        given().contentType("application/json").body("{\"prompt\":\"x\"}").post("/api/v1/teams/default/crons")
                .then().statusCode(400).body("detail", containsString("cron"));
        given().contentType("application/json").body("{\"cron\":\"* * * * *\"}").post("/api/v1/teams/default/crons")
                .then().statusCode(400);
    }
}
