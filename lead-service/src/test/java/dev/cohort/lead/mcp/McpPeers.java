package dev.cohort.lead.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.devstack.OptionalProgram;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * MCP programs nobody here wrote, installed from npm outside the repository ({@code .ci/run} puts them under
 * {@code ~/.cache/cohort/mcp-peers}; {@code COHORT_MCP_PEERS} names another directory): Node.js 22 (the npm package
 * {@code node@22}), the MCP inspector's CLI and the official conformance suite. Without them a test that needs them is
 * skipped with one line saying how to install them ({@link OptionalProgram#MCP_PEERS}); in CI it fails.
 */
record McpPeers(Path node, Path inspector, Path conformance) {

    /** The conformance suite's server scenarios Cohort's {@code /mcp} claims (see McpServerTest). */
    static final List<String> CLAIMED_SCENARIOS = List.of("server-initialize", "ping", "tools-list",
            "dns-rebinding-protection");

    /** The reference filesystem server ({@code @modelcontextprotocol/server-filesystem}). */
    Path filesystem() {
        return node.getParent().getParent().resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
    }

    /** The reference server of every feature ({@code @modelcontextprotocol/server-everything}). */
    Path everything() {
        return node.getParent().getParent().resolve("@modelcontextprotocol/server-everything/dist/index.js");
    }

    static McpPeers required() {
        String env = System.getenv("COHORT_MCP_PEERS");
        Path dir = env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "cohort", "mcp-peers");
        Path modules = dir.resolve("node_modules");
        McpPeers peers = new McpPeers(modules.resolve(".bin/node"),
                modules.resolve("@modelcontextprotocol/inspector-cli/build/index.js"),
                modules.resolve("@modelcontextprotocol/conformance/dist/index.js"));
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(peers.node())) {
            missing.add(peers.node() + " is not there");
        }
        if (!Files.isRegularFile(peers.inspector())) {
            missing.add(peers.inspector() + " is not there");
        }
        if (!Files.isRegularFile(peers.conformance())) {
            missing.add(peers.conformance() + " is not there");
        }
        for (Path server : List.of(peers.filesystem(), peers.everything())) {
            if (!Files.isRegularFile(server)) {
                missing.add(server + " is not there");
            }
        }
        OptionalProgram.MCP_PEERS.assume(missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing)));
        return peers;
    }

    /**
     * Runs {@code script} with these arguments on the peers' node, in the script's directory (the inspector finds its
     * own package.json from there); its output (stdout and stderr), once it exited 0.
     */
    String run(Path script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(node.toString(), script.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("mcp-peer", ".out");
        try {
            Process p = new ProcessBuilder(cmd).directory(script.getParent().toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " did not finish in 10 minutes: " + Files.readString(out));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(cmd + " exited with " + p.exitValue() + ":\n" + text).isZero();
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
