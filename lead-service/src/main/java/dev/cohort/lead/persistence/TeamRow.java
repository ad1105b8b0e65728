package dev.cohort.lead.persistence;

import java.time.Instant;

/** A team as stored in {@code lead.teams}. */
public record TeamRow(String id, String workspace, String permissionMode, Instant createdAt) {
}
