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
    void theWordsTheShellExpandsAreMarkedAndUnquotedOnesMaySplit() {
        ShellParser.SimpleCommand c = all("sed -n \"$s\" $f '$p' *.md '*.md' {a,b} {} x{1..3} `id` $(id) ${x} \\$y")
                .get(0);
        assertThat(c.words()).containsExactly("sed", "-n", "$s", "$f", "$p", "*.md", "*.md", "{a,b}", "{}", "x{1..3}",
                "$(…)", "$(…)", "${x}", "$y");
        assertThat(c.expanded()).containsExactlyInAnyOrder(2, 3, 5, 7, 9, 10, 11, 12);
        assertThat(c.splits()).containsExactlyInAnyOrder(3, 5, 7, 9, 10, 11, 12);
    }

    @Test
    void arithmeticThatNamesAVariableAndIndirectOrSubscriptedExpansionsEvaluate() {
        for (String evaluates : List.of("echo $((x))", "echo \"$((n + 1))\"", "echo ${a[i]}", "echo ${s:i}",
                "echo ${!ref}", "echo $[x]", "((x = y))", "for ((i = 0; i < n; i++)); do :; done",
                "for v in $((x)); do :; done", "cat <<EOF\n$((x))\nEOF")) {
            assertThat(all(evaluates)).as(evaluates).anyMatch(ShellParser.SimpleCommand::evaluates);
        }
        for (String literal : List.of("echo $((1 + 2))", "echo ${a[0]} ${s:1:2} ${x:-y} ${#x}", "echo '$((x))'",
                "cat <<'EOF'\n$((x))\nEOF", "echo ${x//[a-z]/}")) {
            assertThat(all(literal)).as(literal).noneMatch(ShellParser.SimpleCommand::evaluates);
        }
    }

    @Test
    void substitutionsInsideParameterExpansionsArithmeticAndUnquotedHereDocumentsAreCommands() {
        assertThat(all("echo ${x:-$(rm -rf /)}")).extracting(c -> c.words().get(0)).containsExactly("echo", "rm");
        assertThat(all("echo $(( $(id -u) + 1 ))")).extracting(c -> c.words().get(0)).containsExactly("echo", "id");
        assertThat(all("cat <<EOF | wc -l\nuser `whoami`\nhome ${HOME:-$(pwd)}\nEOF\nls"))
                .extracting(c -> c.words().get(0)).containsExactly("cat", "wc", "whoami", "pwd", "ls");
        // a quoted delimiter keeps the body data
        assertThat(all("cat <<'EOF'\n$(rm -rf /)\nEOF")).extracting(c -> c.words().get(0)).containsExactly("cat");
    }

    @Test
    void invalidShellIsAParseError() {
        assertThatThrownBy(() -> ShellParser.parse("echo 'open")).isInstanceOf(ShellParser.ParseException.class);
        assertThatThrownBy(() -> ShellParser.parse("echo $(ls")).isInstanceOf(ShellParser.ParseException.class);
        assertThatThrownBy(() -> ShellParser.parse("echo " + "$(echo ".repeat(12) + ")".repeat(12)))
                .isInstanceOf(ShellParser.ParseException.class);
    }
}
