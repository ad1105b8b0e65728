package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Text written by models and tools, as the CLI prints it: every terminal control shown, none obeyed. */
class TerminalTextTest {

    /** The attack: a carriage return and "erase line" turn a dangerous command into an innocent-looking question. */
    static final String REWRITE = "rm -rf ~\r\u001b[2KApprove bash: ls? [y/N]";

    @Test
    void aCarriageReturnAndAnEraseLineAreShownSoTheyCannotRewriteTheLine() {
        assertThat(TerminalText.safe(REWRITE)).isEqualTo("rm -rf ~^M^[[2KApprove bash: ls? [y/N]");
        assertThat(TerminalText.line(REWRITE)).isEqualTo("rm -rf ~^M^[[2KApprove bash: ls? [y/N]");
    }

    @Test
    void anOscTitleSequenceAnEightBitCsiAndBidiOverridesAreShownAsText() {
        assertThat(TerminalText.safe("a\u001b]0;title\u0007b")).isEqualTo("a^[]0;title^Gb");
        assertThat(TerminalText.safe("\u009b2J cleared")).isEqualTo("<U+009B>2J cleared");
        assertThat(TerminalText.safe("invoice\u202efdp.exe")).isEqualTo("invoice<U+202E>fdp.exe");
        assertThat(TerminalText.safe("\u2066x\u2069 \u200b \u2060 \ufeff \u2028")).isEqualTo("<U+2066>x<U+2069> <U+200B> <U+2060> <U+FEFF> <U+2028>");
        assertThat(TerminalText.safe("back\bspace del\u007f nul\u0000")).isEqualTo("back^Hspace del^? nul^@");
    }

    @Test
    void lettersOfEveryScriptEmojiTabsAndNewlinesAreLeftAlone() {
        String text = "Grüße, naïve café — 日本語 עברית 🎉👩‍💻\tcol\nnext line";
        assertThat(TerminalText.safe(text)).isSameAs(text);
        assertThat(TerminalText.line(text)).isEqualTo("Grüße, naïve café — 日本語 עברית 🎉👩‍💻\tcol↵next line");
        assertThat(TerminalText.safe((String) null)).isEmpty();
    }

    @Test
    void windowsLineEndsAreNewlinesAndALoneCarriageReturnIsNot() {
        assertThat(TerminalText.safe("one\r\ntwo\rthree")).isEqualTo("one\ntwo^Mthree");
        assertThat(TerminalText.line("one\r\ntwo\nthree")).isEqualTo("one↵two↵three");
    }

    @Test
    void neutralisingTwiceChangesNothingMore() {
        String once = TerminalText.safe(REWRITE + "\u009b\u202e");
        assertThat(TerminalText.safe(once)).isEqualTo(once);
        assertThat(TerminalText.line(TerminalText.line(REWRITE + "\n"))).isEqualTo(TerminalText.line(REWRITE + "\n"));
    }

    @Test
    void aLongTextIsBoundedWithACountOfWhatIsLeftOutAndNeverSplitsACharacterPair() {
        TerminalText.Bounded whole = TerminalText.bounded("ls\n-la", 10);
        assertThat(whole.head()).isEqualTo("ls↵-la");
        assertThat(whole.more()).isZero();

        TerminalText.Bounded cut = TerminalText.bounded("x".repeat(2_500), 2_000);
        assertThat(cut.head()).isEqualTo("x".repeat(2_000));
        assertThat(cut.more()).isEqualTo(500);

        // the emoji's two chars sit at 1999 and 2000: it goes to the part left out, whole
        TerminalText.Bounded pair = TerminalText.bounded("x".repeat(1_999) + "🎉" + "y".repeat(10), 2_000);
        assertThat(pair.head()).isEqualTo("x".repeat(1_999));
        assertThat(pair.more()).isEqualTo(12);

        assertThat(TerminalText.more(500, "/show 0123abcd")).isEqualTo("… 500 more characters, /show 0123abcd");
        assertThat(TerminalText.more(1, "/show a")).isEqualTo("… 1 more character, /show a");
    }

    @Test
    void everyStringOfAJsonTreeIsNeutralisedFieldNamesIncluded() throws Exception {
        ObjectNode event = Json.MAPPER.createObjectNode().put("type", "assistant_message");
        event.putObject("data").put("text", REWRITE).put("n", 3).put("k\u001bey", "v").putArray("list").add("\u009bx").add(true);
        JsonNode safe = TerminalText.safe(event);
        assertThat(safe.path("data").path("text").asText()).isEqualTo("rm -rf ~^M^[[2KApprove bash: ls? [y/N]");
        assertThat(safe.path("data").path("k^[ey").asText()).isEqualTo("v");
        assertThat(safe.path("data").path("list").get(0).asText()).isEqualTo("<U+009B>x");
        assertThat(safe.path("data").path("list").get(1).asBoolean()).isTrue();
        assertThat(safe.path("data").path("n").asInt()).isEqualTo(3);
        // the original is untouched
        assertThat(event.path("data").path("text").asText()).isEqualTo(REWRITE);
    }

    @Test
    void jsonOutputEscapesEveryControlButKeepsTheData() throws Exception {
        ObjectNode task = Json.MAPPER.createObjectNode().put("subject", REWRITE + "\u009b\u202e\u007f é 🎉");
        String out = TerminalText.json(task);
        assertThat(out).doesNotContain("\u001b", "\r", "\u009b", "\u202e", "\u007f").contains("\\r", "é 🎉");
        assertThat(out.toLowerCase(Locale.ROOT)).contains("\\u001b", "\\u009b", "\\u202e", "\\u007f");
        assertThat(Json.MAPPER.readTree(out)).isEqualTo(task);
    }
}
