package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;

/**
 * What a running {@code cohort up} tells the other commands: its URLs and API token, in
 * {@code ~/.cohort/up.json} (mode 600, removed when {@code up} stops).
 */
public record LocalRun(String leadUrl, String schedulerUrl, String apiToken, long pid) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static Path file() {
        String override = System.getenv("COHORT_HOME");
        Path dir = override != null && !override.isBlank() ? Path.of(override) : Path.of(System.getProperty("user.home"), ".cohort");
        return dir.resolve("up.json");
    }

    void write() throws IOException {
        Path f = file();
        Files.createDirectories(f.getParent());
        Path tmp = f.resolveSibling("up.json.tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tmp, MAPPER.writeValueAsString(Map.of("leadUrl", leadUrl, "schedulerUrl", schedulerUrl,
                "apiToken", apiToken == null ? "" : apiToken, "pid", pid)));
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static void remove(long pid) {
        try {
            Optional<LocalRun> r = read();
            if (r.isPresent() && r.get().pid() == pid) {
                Files.deleteIfExists(file());
            }
        } catch (IOException ignored) {
            // best effort
        }
    }

    static Optional<LocalRun> read() {
        Path f = file();
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        try {
            JsonNode n = MAPPER.readTree(f.toFile());
            return Optional.of(new LocalRun(n.path("leadUrl").asText(), n.path("schedulerUrl").asText(),
                    n.path("apiToken").asText(""), n.path("pid").asLong()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
