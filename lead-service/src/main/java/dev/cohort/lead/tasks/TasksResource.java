package dev.cohort.lead.tasks;

import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import java.util.List;
import java.util.Set;

/** The public, read-only task board (ARCHITECTURE §4.1): {@code GET /api/v1/teams/{team}/tasks[/{id}]}. */
@Path("/api/v1/teams/{team}/tasks")
@Produces(MediaType.APPLICATION_JSON)
public class TasksResource {

    private static final Set<String> STATUSES = Set.of("pending", "in_progress", "completed");

    @Inject
    TaskService tasks;

    /** The board in creation order; {@code ?status=} keeps one status. */
    @GET
    public List<TaskView> list(@PathParam("team") String team, @QueryParam("status") String status) {
        if (status != null && !STATUSES.contains(status)) {
            throw TaskRefusal.invalid("unknown status \"" + status + "\"; one of " + STATUSES);
        }
        return tasks.list(team).stream().map(TaskView::of)
                .filter(v -> status == null || status.equals(v.status())).toList();
    }

    @GET
    @Path("/{id}")
    public TaskView get(@PathParam("team") String team, @PathParam("id") String id) {
        return TaskView.of(tasks.get(team, id));
    }
}
