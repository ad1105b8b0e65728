package dev.cohort.lead.prompts;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Prompts of a team's lead in {@code lead.prompts}: the key (team, id) is the redelivery guard; {@code seq} is
 * arrival order. Status: received → running | injected → done | failed.
 */
@ApplicationScoped
public class PromptRepository {

    /** A queued prompt. */
    public record QueuedPrompt(String id, String text, String source) {
    }

    /** Where a prompt is: its status and the turn that answers it ({@code null} until that turn's first save). */
    public record PromptState(String status, String turnId) {
    }

    @Inject
    AgroalDataSource ds;

    /** A prompt's state; empty while it is not recorded yet (it is on its way through {@code cohort.prompts}). */
    public Optional<PromptState> state(String team, String id) {
        return Sql.inTransaction(ds, "read prompt " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT status, turn_id FROM lead.prompts WHERE team = ? AND id = ?")) {
                Sql.bind(ps, team, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new PromptState(rs.getString(1), rs.getString(2))) : Optional.empty();
                }
            }
        });
    }

    /** Queues a prompt; false when this id was seen before (a redelivered record or a retried POST). */
    public boolean insertIfNew(String team, String id, String text, String source) {
        return Sql.inTransaction(ds, "record prompt " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO lead.prompts (team, id, text, source) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
                Sql.bind(ps, team, id, text, source);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Sets a prompt's status directly (a prompt that never started a turn). */
    public void setStatus(String team, String id, String status) {
        Sql.inTransaction(ds, "update prompt " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.prompts SET status = ? WHERE team = ? AND id = ?")) {
                Sql.bind(ps, status, team, id);
                return ps.executeUpdate();
            }
        });
    }

    /** running prompts that never reached their turn's first save: failed with their turn. */
    public void failRunningWithoutTurn(String team) {
        Sql.inTransaction(ds, "fail running prompts of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lead.prompts SET status = 'failed' WHERE team = ? AND status = 'running' AND turn_id IS NULL")) {
                ps.setString(1, team);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * running → received for prompts that belong to no saved turn (taken, then the process died before the turn's
     * first save): only the team's actor calls this, before it starts or resumes a turn.
     */
    public int requeueUnstarted(String team, String currentTurnId) {
        return Sql.inTransaction(ds, "requeue prompts of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.prompts SET status = 'received', turn_id = NULL "
                    + "WHERE team = ? AND status = 'running' AND (turn_id IS NULL OR turn_id IS DISTINCT FROM ?)")) {
                ps.setString(1, team);
                ps.setString(2, currentTurnId);
                return ps.executeUpdate();
            }
        });
    }

    /** Prompts not yet taken, oldest first. */
    public List<QueuedPrompt> pending(String team, int limit) {
        return Sql.inTransaction(ds, "read pending prompts of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id, text, source FROM lead.prompts WHERE team = ? AND status = 'received' ORDER BY seq LIMIT ?")) {
                ps.setString(1, team);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<QueuedPrompt> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new QueuedPrompt(rs.getString(1), rs.getString(2), rs.getString(3)));
                    }
                    return out;
                }
            }
        });
    }

    public Optional<QueuedPrompt> next(String team) {
        return pending(team, 1).stream().findFirst();
    }

    /** received → running for a new turn (its turn id is set at the turn's first save); false if already taken. */
    public boolean markRunning(String team, String id) {
        return Sql.inTransaction(ds, "start prompt " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lead.prompts SET status = 'running', turn_id = NULL WHERE team = ? AND id = ? AND status = 'received'")) {
                ps.setString(1, team);
                ps.setString(2, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Ends every prompt of a turn (the one that started it and those injected into it). */
    public void finishTurn(String team, String turnId, String status) {
        Sql.inTransaction(ds, "finish turn " + turnId, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.prompts SET status = ? WHERE team = ? AND turn_id = ? "
                    + "AND status IN ('running', 'injected')")) {
                Sql.bind(ps, status, team, turnId);
                return ps.executeUpdate();
            }
        });
    }

    /** Every prompt a turn answered, oldest first: the one that started it and those injected into it. */
    public List<String> idsOfTurn(String team, String turnId) {
        return Sql.inTransaction(ds, "read prompts of turn", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM lead.prompts WHERE team = ? AND turn_id = ? ORDER BY seq")) {
                ps.setString(1, team);
                ps.setString(2, turnId);
                try (ResultSet rs = ps.executeQuery()) {
                    List<String> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                    return out;
                }
            }
        });
    }

    /** The prompt that started a turn (to label a resumed turn's events). */
    public Optional<String> runningPromptOfTurn(String team, String turnId) {
        return Sql.inTransaction(ds, "read prompt of turn", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM lead.prompts WHERE team = ? AND turn_id = ? AND status = 'running' ORDER BY seq LIMIT 1")) {
                ps.setString(1, team);
                ps.setString(2, turnId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }
}
