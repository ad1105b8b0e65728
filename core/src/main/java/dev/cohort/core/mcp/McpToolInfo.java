package dev.cohort.core.mcp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One tool of an MCP server as the server listed it ({@code tools/list}).
 *
 * @param name        the server's name for it
 * @param description its description ({@code null}: none)
 * @param inputSchema its JSON schema of arguments
 * @param readOnly    the server declares it changes nothing ({@code annotations.readOnlyHint})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record McpToolInfo(String name, String description, JsonNode inputSchema, boolean readOnly) {
}
