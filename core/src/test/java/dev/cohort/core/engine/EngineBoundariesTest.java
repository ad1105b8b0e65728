package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine reacts to what tools report ({@link dev.cohort.core.tools.ToolEffect},
 * {@link dev.cohort.core.tools.PermissionSubject}), never to which tool ran: no engine source imports a concrete tool
 * (a class under a {@code dev.cohort.core.tools.<kind>} package whose name ends in {@code Tool}).
 */
class EngineBoundariesTest {
    private static final Pattern CONCRETE_TOOL = Pattern.compile(
            "^import dev\\.cohort\\.core\\.tools\\.[a-z]+\\.[A-Za-z]*Tool;", Pattern.MULTILINE);

    @Test
    void noEngineSourceImportsAConcreteTool() throws IOException {
        Path engine = Path.of("src/main/java/dev/cohort/core/engine");
        assertThat(engine).isDirectory();
        List<String> offenders;
        try (Stream<Path> files = Files.walk(engine)) {
            offenders = files.filter(p -> p.toString().endsWith(".java")).filter(p -> {
                try {
                    return CONCRETE_TOOL.matcher(Files.readString(p)).find();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).map(Path::toString).toList();
        }
        assertThat(offenders).isEmpty();
        // the check itself recognises such an import
        assertThat(CONCRETE_TOOL.matcher("import dev.cohort.core.tools.todo.TodoWriteTool;").find()).isTrue();
    }
}
