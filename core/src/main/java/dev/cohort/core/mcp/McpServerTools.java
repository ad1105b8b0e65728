package dev.cohort.core.mcp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What the tool runner knows of one server's tools ({@code POST /internal/v1/mcp/tools}).
 *
 * @param server  the server's name
 * @param tools   its tools ({@code null} with {@code error})
 * @param version how many times its list was read since its configuration last changed: a new version means a new
 *                list ({@code notifications/tools/list_changed}, or the server started again)
 * @param error   why its tools are not known (it did not start, it answered with an error); the message names the
 *                server and never a secret
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record McpServerTools(String server, List<McpToolInfo> tools, long version, String error) {
}
