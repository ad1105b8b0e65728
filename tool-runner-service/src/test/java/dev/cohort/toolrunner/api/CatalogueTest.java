package dev.cohort.toolrunner.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /internal/v1/tools}: the catalogue the agents build their workspace tools from. It is also the fixture
 * the engine's tests use ({@link WorkspaceToolsFixture}): a tool changed here fails this test until the fixture is
 * written again ({@code -Dcohort.catalogue.update=true} writes it).
 */
@QuarkusTest
class CatalogueTest {

    private static JsonNode served() throws Exception {
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .get("/internal/v1/tools").then().statusCode(200).extract().asString();
        return Json.MAPPER.readTree(body);
    }

    @Test
    void theCatalogueIsTheFixtureTheEngineTestsUse() throws Exception {
        JsonNode served = served();
        if (Boolean.getBoolean("cohort.catalogue.update")) {
            Files.writeString(Path.of("../core/src/test/resources").resolve(WorkspaceToolsFixture.RESOURCE.substring(1)),
                    Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(served) + "\n");
        }
        assertThat(served).as("the served catalogue; run this test with -Dcohort.catalogue.update=true to write it")
                .isEqualTo(WorkspaceToolsFixture.json());
    }

    @Test
    void everyEntryMakesAnEngineToolWithItsRolesMutabilityAndPermissionSubject() throws Exception {
        List<ToolDescriptor> entries = Arrays.asList(Json.MAPPER.treeToValue(served(), ToolDescriptor[].class));
        WorkspaceCatalogue catalogue = new WorkspaceCatalogue(entries);
        assertThat(catalogue.names()).contains("bash", "read_file", "write_file", "edit_file", "glob", "grep",
                "file_tree", "check_background", "cancel_background", "create_worktree", "remove_worktree",
                "keep_worktree", "list_worktrees");
        assertThat(catalogue.forRole(AgentRole.SUBAGENT)).extracting(t -> t.name())
                .contains("bash", "file_tree").doesNotContain("create_worktree");
        assertThat(catalogue.forRole(AgentRole.TEAMMATE)).extracting(t -> t.name()).doesNotContain("remove_worktree");
        assertThat(catalogue.changesNothing("file_tree")).isTrue();
        assertThat(catalogue.changesNothing("bash")).isFalse();
        assertThat(catalogue.changesNothing("no_such_tool")).isFalse();

        ObjectNode bash = Json.MAPPER.createObjectNode().put("command", "rm -rf x");
        assertThat(catalogue.find("bash").orElseThrow().permissionSubject(bash))
                .isEqualTo(new PermissionSubject.Command("rm -rf x"));
        ObjectNode write = Json.MAPPER.createObjectNode().put("path", "a.txt").put("content", "");
        assertThat(catalogue.find("write_file").orElseThrow().permissionSubject(write))
                .isEqualTo(new PermissionSubject.FileWrite("a.txt"));
        ObjectNode discard = Json.MAPPER.createObjectNode().put("name", "wt1").put("discard_changes", true);
        assertThat(catalogue.find("remove_worktree").orElseThrow().permissionSubject(discard))
                .isEqualTo(new PermissionSubject.Destructive("discard-worktree",
                        "removing worktree 'wt1' and discarding its uncommitted and unmerged work"));
        ObjectNode keep = Json.MAPPER.createObjectNode().put("name", "wt1");
        assertThat(catalogue.find("remove_worktree").orElseThrow().permissionSubject(keep))
                .isEqualTo(PermissionSubject.NONE);
        ObjectNode read = Json.MAPPER.createObjectNode().put("path", "src");
        assertThat(catalogue.find("file_tree").orElseThrow().permissionSubject(read))
                .isEqualTo(new PermissionSubject.Path("src"));
    }

    @Test
    void theCatalogueNeedsTheToken() {
        given().get("/internal/v1/tools").then().statusCode(401);
    }
}
