package dev.cohort.core.tools.workspace;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.Tool;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/**
 * The tool runner's catalogue of workspace tools as it serves it ({@code GET /internal/v1/tools}), for tests that
 * build an engine without a runner. The tool runner's {@code CatalogueTest} fails when the fixture and the served
 * catalogue differ, so the engine's tests see the tools as they are declared.
 */
public final class WorkspaceToolsFixture {
    /** The classpath resource holding the catalogue. */
    public static final String RESOURCE = "/dev/cohort/core/tools/workspace/workspace-tools.json";

    private static final WorkspaceCatalogue CATALOGUE = new WorkspaceCatalogue(entries());

    private WorkspaceToolsFixture() {
    }

    /** The catalogue as JSON. */
    public static JsonNode json() {
        try (InputStream in = WorkspaceToolsFixture.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("no " + RESOURCE + " on the classpath");
            }
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The catalogue's entries. */
    public static List<ToolDescriptor> entries() {
        try {
            return Arrays.asList(Json.MAPPER.treeToValue(json(), ToolDescriptor[].class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The catalogue. */
    public static WorkspaceCatalogue catalogue() {
        return CATALOGUE;
    }

    /** The tool named {@code name}. */
    public static Tool tool(String name) {
        return CATALOGUE.find(name).orElseThrow(() -> new IllegalArgumentException("no workspace tool " + name));
    }

    /** The tools named {@code names}, in that order. */
    public static List<Tool> tools(String... names) {
        return Arrays.stream(names).map(WorkspaceToolsFixture::tool).toList();
    }
}
