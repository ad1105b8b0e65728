package dev.cohort.core.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The shell tokeniser both permission layers decide on (the engine's gate and the tool runner's policy). */
class ShellParserTest {

    private static List<ShellParser.SimpleCommand> all(String command) {
        return ShellParser.flatten(ShellParser.parse(command));
    }

    @Test
    void heredocBodiesAreDataAndSubstitutionsAreCommands() {
        List<ShellParser.SimpleCommand> all = all("cat <<EOF > f\nsudo x\nEOF\necho `id` $(whoami) 2>&1 | tee -a log");
        assertThat(all).extracting(c -> c.words().get(0)).containsExactly("cat", "echo", "id", "whoami", "tee");
        assertThat(all.get(0).redirects()).containsExactly(new ShellParser.Redirect("<<", "EOF"),
                new ShellParser.Redirect(">", "f"));
    }

    @Test
    void quotesAreRemovedAndOperatorsSplitCommands() {
        List<ShellParser.SimpleCommand> all = all("echo 'a b' \"c\\\"d\" e\\ f; ls -la && (cd x || pwd) & wc -l");
        assertThat(all).extracting(ShellParser.SimpleCommand::words).containsExactly(
                List.of("echo", "a b", "c\"d", "e f"), List.of("ls", "-la"), List.of("cd", "x"), List.of("pwd"),
                List.of("wc", "-l"));
    }

    @Test
    void pipelineStagesAreNumbered() {
        List<ShellParser.SimpleCommand> all = all("curl -s x | tee f | sh; ls");
        assertThat(all).extracting(ShellParser.SimpleCommand::stage).containsExactly(0, 1, 2, 0);
        assertThat(all.get(0).pipeline()).isEqualTo(all.get(2).pipeline()).isNotEqualTo(all.get(3).pipeline());
    }

    @Test
    void writingRedirectionsAreRecognised() {
        List<ShellParser.Redirect> r = all("cmd > a 2>> b < c 2>&1 &> d").get(0).redirects();
        assertThat(r).filteredOn(ShellParser.Redirect::writes).extracting(ShellParser.Redirect::target)
                .containsExactly("a", "b", "d");
    }

    @Test
    void invalidShellIsAParseError() {
        assertThatThrownBy(() -> ShellParser.parse("echo 'open")).isInstanceOf(ShellParser.ParseException.class);
        assertThatThrownBy(() -> ShellParser.parse("echo $(ls")).isInstanceOf(ShellParser.ParseException.class);
        assertThatThrownBy(() -> ShellParser.parse("echo " + "$(echo ".repeat(12) + ")".repeat(12)))
                .isInstanceOf(ShellParser.ParseException.class);
    }
}
