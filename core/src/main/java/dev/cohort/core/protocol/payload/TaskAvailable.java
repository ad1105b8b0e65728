package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code task_available}: a wake-up for an idle teammate, telling it a task became claimable (it then
 * claims the next free task; the id is a hint, not a reservation).
 *
 * @param taskId  the task that became claimable, {@code task_<n>}
 * @param subject its one-line title; omitted when not known
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskAvailable(String taskId, String subject) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.TASK_AVAILABLE;
    }
}
