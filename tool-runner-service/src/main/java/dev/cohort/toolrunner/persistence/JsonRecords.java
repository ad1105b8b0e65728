package dev.cohort.toolrunner.persistence;

import com.fasterxml.jackson.databind.JavaType;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.List;

/**
 * A list of records kept in memory and in one JSON file, written whole (a temporary file moved over it) after each
 * change, so a reader after a crash finds the list before or after a change, never half of one. For the few records
 * one team sandbox keeps (its background jobs, its worktrees); every method is synchronized.
 */
final class JsonRecords<T> {
    private final Path file;
    private final JavaType type;
    private List<T> records;

    JsonRecords(Path file, Class<T> element) {
        this.file = file;
        this.type = Json.MAPPER.getTypeFactory().constructCollectionType(List.class, element);
    }

    /** {@code f} applied to the records as they are (loaded on first use). */
    synchronized <R> R read(Function<List<T>, R> f) {
        return f.apply(List.copyOf(load()));
    }

    /** Applies {@code change} to a copy of the records and stores the result; returns {@code change}'s answer. */
    synchronized <R> R change(Function<List<T>, R> change) {
        List<T> copy = new ArrayList<>(load());
        R answer = change.apply(copy);
        save(copy);
        records = copy;
        return answer;
    }

    synchronized void update(Consumer<List<T>> change) {
        change(list -> {
            change.accept(list);
            return null;
        });
    }

    private List<T> load() {
        if (records == null) {
            try {
                records = Files.exists(file) ? Json.MAPPER.readValue(file.toFile(), type) : new ArrayList<>();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return records;
    }

    private void save(List<T> list) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, Json.MAPPER.writeValueAsBytes(list));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
