package dev.cohort.toolrunner.workspace;

import dev.cohort.toolrunner.ToolError;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.UUID;

/**
 * Whole outputs of large results and background jobs, stored in the state directory (outside every workspace, per
 * team) under unique ids (never a model-chosen or reusable name). The model reads them back with
 * {@code read_file path="cohort-output://<id>"}.
 */
@ApplicationScoped
public class OutputStore {
    /** The scheme of output references. */
    public static final String SCHEME = "cohort-output://";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,80}");

    @Inject
    Workspaces workspaces;

    /** A fresh id for an output. */
    public static String newId() {
        return "out_" + UUID.randomUUID().toString().replace("-", "");
    }

    public static String ref(String id) {
        return SCHEME + id;
    }

    public static boolean isRef(String path) {
        return path != null && path.startsWith(SCHEME);
    }

    /** The file of output {@code id} of {@code team}. */
    public Path file(String team, String id) {
        return workspaces.outputs(team).resolve(id + ".txt");
    }

    /** The file a reference points to; only the calling team's outputs are reachable. */
    public Path resolveRef(String team, String ref) {
        String id = ref.substring(SCHEME.length());
        if (!ID.matcher(id).matches()) {
            throw new ToolError("bad-output-ref", "'" + ref + "' is not a valid output reference");
        }
        return file(team, id);
    }
}
