package dev.cohort.core.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * A {@link TranscriptStore} on disk: {@code <root>/<team>/<agent>/<name>}, created with {@code CREATE_NEW} so nothing
 * is ever overwritten. Names and agent ids are reduced to {@code [A-Za-z0-9._-]} so they cannot leave the root.
 */
public final class FileTranscriptStore implements TranscriptStore {
    private final Path root;

    public FileTranscriptStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public String write(String agentId, String name, String content) {
        Path dir = dir(agentId);
        String base = safe(name);
        try {
            Files.createDirectories(dir);
            String n = base;
            for (int i = 2; ; i++) {
                try {
                    Files.writeString(dir.resolve(n), content, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE);
                    return n;
                } catch (FileAlreadyExistsException e) {
                    n = base + "." + i;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store " + base + " for " + agentId, e);
        }
    }

    @Override
    public Optional<String> read(String agentId, String name) {
        try {
            return Optional.of(Files.readString(dir(agentId).resolve(safe(name)), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path dir(String agentId) {
        Path d = root;
        for (String part : agentId.split("/")) {
            d = d.resolve(safe(part));
        }
        return d;
    }

    static String safe(String s) {
        String r = s == null ? "" : s.replaceAll("[^A-Za-z0-9._-]", "_");
        r = r.replaceAll("^\\.+", "_");
        return r.isEmpty() ? "_" : r.length() > 150 ? r.substring(0, 150) : r;
    }
}
