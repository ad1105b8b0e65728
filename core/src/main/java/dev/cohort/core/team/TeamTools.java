package dev.cohort.core.team;

import dev.cohort.core.tools.Tool;
import java.util.List;

/** The team tools every agent has ({@code send_message}, {@code check_inbox}), over one {@link TeamChannel}. */
public final class TeamTools {
    private TeamTools() {
    }

    public static List<Tool> common(TeamChannel channel) {
        return List.of(new SendMessageTool(channel), new CheckInboxTool(channel));
    }
}
