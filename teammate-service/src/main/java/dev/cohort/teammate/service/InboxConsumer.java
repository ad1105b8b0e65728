package dev.cohort.teammate.service;

import dev.cohort.core.protocol.AgentMessage;
import io.agroal.api.AgroalDataSource;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Reads {@code cohort.teammate.inbox} for the partitions this replica owns. Today it validates and records each
 * message once (poison records go to {@code cohort.dlq}); hosting the teammate agents comes with the teammate issue.
 */
@ApplicationScoped
public class InboxConsumer {

    @Inject
    AgroalDataSource ds;

    @Incoming("teammate-inbox")
    @Blocking
    public void onMessage(ConsumerRecord<String, String> record) {
        AgentMessage m = AgentMessage.parse(record.value());
        String agentId = m.key();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO teammate.inbox_seen (agent_id, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            ps.setString(1, agentId);
            ps.setString(2, m.id());
            if (ps.executeUpdate() == 0) {
                Log.debugf("agent=%s message=%s already seen", agentId, m.id());
                return;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record inbox message " + m.id(), e);
        }
        Log.infof("team=%s agent=%s message=%s type=%s received (teammate hosting not implemented yet)", m.team(), m.to(),
                m.id(), m.type().wire());
    }
}
