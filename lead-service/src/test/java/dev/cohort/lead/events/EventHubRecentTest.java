package dev.cohort.lead.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.lead.events.EventHub;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hub's recent events: served only as a gap-free run from the very next seq, whatever order they came in. */
class EventHubRecentTest {

    static EventHub.Recent e(long seq) {
        return new EventHub.Recent(seq, "assistant_message", "{\"seq\":" + seq + "}");
    }

    @Test
    void aFollowerGetsTheKeptEventsFromTheNextSeqOnInOrderUpToTheBatchSize() {
        EventHub hub = new EventHub(8);
        for (long s = 1; s <= 5; s++) {
            hub.announce("t", e(s));
        }

        assertThat(hub.recentAfter("t", 2, 10)).containsExactly(e(3), e(4), e(5));
        assertThat(hub.recentAfter("t", 0, 2)).containsExactly(e(1), e(2));
        assertThat(hub.recentAfter("t", 5, 10)).as("nothing newer").isEmpty();
        assertThat(hub.recentAfter("other", 0, 10)).as("another team").isEmpty();
        assertThat(hub.latest("t")).isEqualTo(5);
    }

    @Test
    void aMissingNextSeqServesNothingSoTheFollowerReadsTheStore() {
        EventHub hub = new EventHub(8);
        hub.announce("t", e(2)); // seq 1 was stored by another replica: only its wake-up arrives
        hub.announce("t", 1);
        hub.announce("t", e(3));

        assertThat(hub.recentAfter("t", 0, 10)).as("seq 1 is not kept: the store has it").isEmpty();
        assertThat(hub.recentAfter("t", 1, 10)).containsExactly(e(2), e(3));
    }

    @Test
    void aRunStopsAtTheFirstGapAndEventsAnnouncedOutOfOrderAreServedOnceBothAreThere() {
        EventHub hub = new EventHub(8);
        hub.announce("t", e(1));
        hub.announce("t", e(3)); // committed after 2, announced before it

        assertThat(hub.recentAfter("t", 0, 10)).containsExactly(e(1));
        hub.announce("t", e(2));
        assertThat(hub.recentAfter("t", 0, 10)).containsExactly(e(1), e(2), e(3));
    }

    @Test
    void eventsThatFellOutOfTheBufferAreNotServedAndNoStaleSlotIsTakenForANewerSeq() {
        EventHub hub = new EventHub(4);
        for (long s = 1; s <= 6; s++) {
            hub.announce("t", e(s));
        }

        assertThat(hub.recentAfter("t", 0, 10)).as("seq 1 and 2 were overwritten by 5 and 6").isEmpty();
        assertThat(hub.recentAfter("t", 2, 10)).containsExactly(e(3), e(4), e(5), e(6));
        hub.announce("t", e(4)); // an older seq again (a redelivered announce) does not displace anything
        assertThat(hub.recentAfter("t", 2, 10)).containsExactly(e(3), e(4), e(5), e(6));
        assertThat(hub.recentAfter("t", 6, 10)).as("seq 7 maps to seq 3's slot: not served").isEmpty();
    }

    @Test
    void withoutABufferEveryFollowerReadsTheStoreButWakeUpsStillArrive() {
        EventHub hub = new EventHub(0);
        hub.announce("t", e(1));

        assertThat(hub.recentAfter("t", 0, 10)).isEqualTo(List.of());
        assertThat(hub.latest("t")).isEqualTo(1);
    }
}
