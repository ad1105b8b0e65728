package dev.cohort.core.host;

import static dev.cohort.core.host.HostFixture.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.engine.Message;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sessions of idle agents kept for their next wake-up ({@link AgentProgram#keepIdleSession}): the next turn skips
 * the adopt and the session open, a hand-over or an adoption drops the kept session, a takeover elsewhere is still
 * caught by the fence, and no more than {@link HostSettings#keptSessions} are kept.
 */
class KeptSessionsTest {
    private static final Duration WAIT = Duration.ofMinutes(2);
    private final HostFixture f = new HostFixture();
    private final AgentKey a = key("a");
    private AgentHost one;
    private AgentHost two;

    @AfterEach
    void stop() {
        for (AgentHost h : new AgentHost[] {one, two}) {
            if (h != null) {
                h.close();
            }
        }
    }

    private void turn(AgentHost host, AgentKey key, String text, int completed) {
        f.program.send(key, text);
        host.wake(key);
        await().atMost(WAIT).until(() -> f.program.stoppedOf(key).size() == completed && !host.hosting(key));
    }

    private List<String> userTexts(AgentKey key) {
        return f.store.state(key).messages().stream().filter(m -> m.role() == Message.Role.USER).map(Message::content)
                .toList();
    }

    @Test
    void aWokenIdleAgentRunsItsNextTurnOnItsKeptSessionWithoutAdoptingOrOpeningOne() {
        f.program.keep = true;
        one = f.host("one", 4);
        turn(one, a, "first", 1);
        assertThat(one.keeps(a)).isTrue();

        turn(one, a, "second", 2);

        assertThat(f.program.openedOf(a)).isEqualTo(1);
        assertThat(f.program.stoppedOf(a)).containsExactly("completed", "completed");
        assertThat(userTexts(a)).containsExactly("first", "second");
        assertThat(f.store.row(a).owner()).isEqualTo("one");
    }

    @Test
    void withoutTheProgramsConsentEveryWakeUpAdoptsTheAgentAndOpensANewSession() {
        one = f.host("one", 4);
        turn(one, a, "first", 1);
        turn(one, a, "second", 2);

        assertThat(one.keeps(a)).isFalse();
        assertThat(f.program.openedOf(a)).isEqualTo(2);
        assertThat(one.keptCount()).isZero();
    }

    @Test
    void anAdoptionDropsTheKeptSessionSoTurnsRunElsewhereMeanwhileAreNotLost() {
        f.program.keep = true;
        one = f.host("one", 4);
        two = f.host("two", 4);
        turn(one, a, "on one", 1);
        one.detach(List.of(a), WAIT); // the partition moves to two
        assertThat(one.keeps(a)).isFalse();
        two.adopt(List.of(a));
        turn(two, a, "on two", 2);

        one.adopt(List.of(a)); // and back to one, which must read what two saved
        turn(one, a, "on one again", 3);

        assertThat(f.program.stoppedOf(a)).containsExactly("completed", "completed", "completed");
        assertThat(userTexts(a)).containsExactly("on one", "on two", "on one again");
        assertThat(f.store.row(a).owner()).isEqualTo("one");
        assertThat(f.program.openedOf(a)).isEqualTo(3);
    }

    @Test
    void aKeptSessionOfAnAgentTakenOverElsewhereIsLetGoAtItsFirstSaveAndChangesNothing() {
        f.program.keep = true;
        one = f.host("one", 4);
        two = f.host("two", 4);
        turn(one, a, "on one", 1);
        // two takes the agent over without one being told (one missed the revoke)
        two.adopt(List.of(a));
        turn(two, a, "on two", 2);
        String twos = f.store.state(a).toJson();
        long twosVersion = f.store.row(a).version();

        f.program.send(a, "late on one");
        one.wake(a);
        await().atMost(WAIT).until(() -> !one.hosting(a) && !one.keeps(a));

        assertThat(f.store.row(a).version()).isEqualTo(twosVersion);
        assertThat(f.store.state(a).toJson()).isEqualTo(twos);
        assertThat(f.program.stoppedOf(a)).containsExactly("completed", "completed");
        assertThat(f.program.abandoned).isEmpty();
    }

    @Test
    void noMoreThanTheBoundAreKeptTheLeastRecentlyParkedDroppedFirst() {
        f.program.keep = true;
        one = new AgentHost(f.engine, f.store, f.program, HostSettings.defaults("one").withKeptSessions(2)
                .withSweepInterval(Duration.ofHours(1)).withClock(f.clock));
        AgentKey b = key("b");
        AgentKey c = key("c");
        turn(one, a, "a1", 1);
        turn(one, b, "b1", 1);
        turn(one, c, "c1", 1);

        assertThat(one.keptCount()).isEqualTo(2);
        assertThat(List.of(one.keeps(a), one.keeps(b), one.keeps(c))).containsExactly(false, true, true);

        turn(one, a, "a2", 2); // reopened, then kept again: b is now the least recently parked
        assertThat(f.program.openedOf(a)).isEqualTo(2);
        assertThat(List.of(one.keeps(a), one.keeps(b), one.keeps(c))).containsExactly(true, false, true);
    }

    @Test
    void aNegativeBoundIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> HostSettings.defaults("x").withKeptSessions(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cohort.host.kept-sessions must not be negative, was -1");
    }
}
