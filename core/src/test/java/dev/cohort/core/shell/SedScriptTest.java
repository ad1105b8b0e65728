package dev.cohort.core.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** sed scripts read the way GNU sed compiles them: what runs or writes is never taken for a read. */
class SedScriptTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"p", "1,20p", "$p", "$!N", "/start/,/end/{p;q}", "s/foo/bar/g", "s|a/b|c|2p",
        "s/x/y/I", ":a;N;$!ba;s/\\n/ /g", "y/abc/xyz/", "1i header", "1a\\\ntext\\\nmore", "1r other.txt", "=",
        "0,/re/d", "1~2p", "\\%x%p", "/x/I,+3p", "q5", "l 40", "#n\np", "/a/b end\np\n:end", "s/e/w/",
        "s/a\\/w x/b/"})
    void aScriptThatOnlyReadsAndPrintsIsReadOnly(String script) {
        assertThat(SedScript.of(script)).as(script).isEqualTo(new SedScript(true, List.of()));
    }

    static Stream<Arguments> scriptsThatRunOrWrite() {
        return Stream.of(
                arguments("1e touch pwned", List.of("touch pwned")),
                arguments("e touch pwned", List.of("touch pwned")),
                arguments("$!N;e rm -rf /", List.of("rm -rf /")),
                arguments("/x/{e touch pwned\n}", List.of("touch pwned")),
                arguments("1 ! e ls", List.of("ls")),
                arguments("1a text\ne touch pwned", List.of("touch pwned")),
                arguments("s/.*/x/e", List.of()), // runs the pattern space: nothing to see
                arguments("w out.txt", List.of()),
                arguments("W out.txt", List.of()),
                arguments("s/a/b/w out.txt", List.of()),
                arguments("s/a/b/gew out.txt", List.of()),
                arguments("1r x\nw out.txt", List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scriptsThatRunOrWrite")
    void aScriptThatRunsOrWritesIsNotReadOnlyAndShowsTheCommandsItRuns(String script, List<String> executed) {
        SedScript s = SedScript.of(script);
        assertThat(s.readOnly()).as(script).isFalse();
        assertThat(s.executed()).as(script).isEqualTo(executed);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"k", "s/a/b", "s/a/b/ g", "{p", "p}", "y/ab/c", "L", "1,p"})
    void aScriptSedWouldNotAcceptOrThatIsNotUnderstoodIsNotReadOnly(String script) {
        assertThat(SedScript.of(script).readOnly()).as(script).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"k;e rm -rf /", "s/a/b/ z;e rm -rf /"})
    void anECommandIsStillFoundInAScriptThatIsNotUnderstood(String script) {
        assertThat(SedScript.of(script).executed()).as(script).contains("rm -rf /");
    }
}
