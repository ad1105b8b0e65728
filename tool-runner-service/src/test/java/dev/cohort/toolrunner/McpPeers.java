package dev.cohort.toolrunner;

import dev.cohort.devstack.OptionalProgram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The MCP reference servers from npm, installed outside the repository ({@code .ci/run} puts them under
 * {@code ~/.cache/cohort/mcp-peers}; {@code COHORT_MCP_PEERS} names another directory) with Node.js 22. Without them a
 * test that needs them is skipped with one line saying how to install them; in CI it fails.
 */
public record McpPeers(Path node, Path everything, Path filesystem) {

    /** Where the peers are installed. */
    public static Path directory() {
        String env = System.getenv("COHORT_MCP_PEERS");
        return env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "cohort", "mcp-peers");
    }

    public static McpPeers required() {
        Path modules = directory().resolve("node_modules");
        McpPeers peers = new McpPeers(modules.resolve(".bin/node"),
                modules.resolve("@modelcontextprotocol/server-everything/dist/index.js"),
                modules.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"));
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(peers.node())) {
            missing.add(peers.node() + " is not there");
        }
        if (!Files.isRegularFile(peers.everything())) {
            missing.add(peers.everything() + " is not there");
        }
        if (!Files.isRegularFile(peers.filesystem())) {
            missing.add(peers.filesystem() + " is not there");
        }
        OptionalProgram.MCP_PEERS.assume(missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing)));
        return peers;
    }
}
