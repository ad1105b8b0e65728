package dev.cohort.core.memory;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.EffectRecord;
import dev.cohort.core.tools.ToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A {@link MemoryStore} in a directory: one {@code <name>.md} per memory ({@link MemoryFormat}). Writes go to a temp
 * file and are renamed into place; {@link #replaceAll} writes the new set into a staging directory and swaps it in,
 * keeping the previous set as {@code <dir>.bak} (the tutorial deleted everything first).
 *
 * <p>The first results of keyed tool calls ({@link #once}) are files {@code <dir>.effects/<key>.json}, beside the
 * memories so a consolidation's swap keeps them. Two files cannot change in one step: the record is written right
 * after the memory, so a crash between the two leaves the change made and unrecorded, and its repeat makes it again
 * (harmless for a write of the same memory; a repeated delete then reports the memory missing). The PostgreSQL
 * store of lead-service has no such window.
 */
public final class FileMemoryStore implements MemoryStore {
    private final Path dir;
    private final Path effects;

    public FileMemoryStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
        this.effects = this.dir.resolveSibling(this.dir.getFileName() + ".effects");
    }

    @Override
    public synchronized List<Memory> all() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Memory> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().toList()) {
                String stem = p.getFileName().toString().replaceAll("\\.md$", "");
                MemoryFormat.parse(Files.readString(p, StandardCharsets.UTF_8), stem).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.comparing(Memory::name));
        return List.copyOf(out);
    }

    @Override
    public synchronized Optional<Memory> get(String name) {
        String slug = MemoryNames.slug(name);
        try {
            return MemoryFormat.parse(Files.readString(dir.resolve(slug + ".md"), StandardCharsets.UTF_8), slug);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void put(Memory m) {
        try {
            Files.createDirectories(dir);
            write(dir, m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized boolean delete(String name) {
        try {
            return Files.deleteIfExists(dir.resolve(MemoryNames.slug(name) + ".md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void replaceAll(List<Memory> memories) {
        Path staging = dir.resolveSibling(dir.getFileName() + ".staging-" + UUID.randomUUID());
        Path backup = dir.resolveSibling(dir.getFileName() + ".bak");
        try {
            Files.createDirectories(staging);
            for (Memory m : memories) {
                write(staging, m);
            }
            deleteTree(backup);
            if (Files.exists(dir)) {
                move(dir, backup);
            }
            move(staging, dir);
        } catch (IOException e) {
            try {
                if (!Files.exists(dir) && Files.exists(backup)) {
                    move(backup, dir);
                }
                deleteTree(staging);
            } catch (IOException ignored) {
                // the backup is still there for a person to restore
            }
            throw new UncheckedIOException("memory consolidation could not be applied; the old set is kept", e);
        }
    }

    @Override
    public synchronized ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change) {
        Path record = effects.resolve(key.uuid() + ".json");
        try {
            if (Files.exists(record)) {
                return key.replay(Json.read(Files.readString(record, StandardCharsets.UTF_8), EffectRecord.class));
            }
            ToolResult result = change.apply(this);
            if (!result.error()) {
                Files.createDirectories(effects);
                Path tmp = effects.resolve("." + key.uuid() + ".json.tmp");
                Files.writeString(tmp, Json.write(key.record(result)), StandardCharsets.UTF_8);
                move(tmp, record);
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path into, Memory m) throws IOException {
        Path tmp = into.resolve("." + m.name() + ".md.tmp");
        Files.writeString(tmp, MemoryFormat.render(m), StandardCharsets.UTF_8);
        move(tmp, into.resolve(m.name() + ".md"));
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
