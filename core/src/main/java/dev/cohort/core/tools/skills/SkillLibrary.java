package dev.cohort.core.tools.skills;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Skills bundled with Cohort (classpath {@code skills/<name>/SKILL.md}, listed in {@code skills/index.txt}) plus the
 * workspace's {@code skills/*}{@code /SKILL.md}, read through the workspace executor (the tool runner). A workspace
 * skill shadows a bundled one of the same name. {@link #refresh} re-reads the workspace, so edited or new skills
 * are picked up without a restart; the engine refreshes at the start of every turn. Through a
 * {@link WorkspaceReadCache} (a service's executor) the workspace skills of a team and cwd are read once for all its
 * agents and kept until a change through that executor or the cache's ttl; a skill asked for by name that the kept
 * list lacks ({@link #find}) is looked for in a fresh read, so one just written elsewhere can be loaded at once.
 */
public final class SkillLibrary implements SkillCatalog {
    private static final Logger LOG = Logger.getLogger(SkillLibrary.class);
    private static final Pattern NUMBERED = Pattern.compile("^\\s*\\d+\\t", Pattern.MULTILINE);
    private static final Pattern SKILL_PATH = Pattern.compile("(?:^|\\s|\\./)(skills/([^/\\s]+)/SKILL\\.md)\\s*$",
            Pattern.MULTILINE);
    private static final AtomicLong SEQ = new AtomicLong();

    /** The cache's name of the workspace skills of a team and cwd. */
    static final String CACHED = "skills";

    private final List<Skill> bundled;
    private volatile List<Skill> merged;
    /** Where the last refresh read (for a fresh read of a name the list lacks); null before the first. */
    private volatile WorkspaceToolExecutor lastWorkspace;
    private volatile WorkspaceToolExecutor.Target lastTarget;

    public SkillLibrary(List<Skill> bundled) {
        this.bundled = List.copyOf(bundled);
        this.merged = sorted(this.bundled, List.of());
    }

    /** The skills bundled with Cohort on the classpath. */
    public static List<Skill> loadBundled(ClassLoader cl) {
        List<Skill> out = new ArrayList<>();
        try (InputStream idx = cl.getResourceAsStream("skills/index.txt")) {
            if (idx == null) {
                return out;
            }
            for (String dir : new String(idx.readAllBytes(), StandardCharsets.UTF_8).split("\\R")) {
                dir = dir.strip();
                if (dir.isEmpty() || dir.startsWith("#")) {
                    continue;
                }
                try (InputStream in = cl.getResourceAsStream("skills/" + dir + "/SKILL.md")) {
                    if (in == null) {
                        LOG.warnf("bundled skill %s listed in skills/index.txt has no SKILL.md", dir);
                        continue;
                    }
                    out.add(Frontmatter.toSkill(dir, new String(in.readAllBytes(), StandardCharsets.UTF_8), Skill.BUNDLED));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read bundled skills", e);
        }
        return out;
    }

    @Override
    public List<Skill> list() {
        return merged;
    }

    /**
     * A skill named {@code name}; one missing from the list is looked for in a fresh read of the workspace when the
     * list came from a {@link WorkspaceReadCache} (it may have been written since, outside this process).
     */
    @Override
    public Optional<Skill> find(String name) {
        Optional<Skill> known = SkillCatalog.super.find(name);
        if (known.isPresent() || !(lastWorkspace instanceof WorkspaceReadCache cache)) {
            return known;
        }
        WorkspaceToolExecutor.Target target = lastTarget;
        try {
            merged = sorted(bundled, cache.reload(CACHED, target, () -> read(cache, target)));
        } catch (RuntimeException e) {
            LOG.warnf("cannot read workspace skills for '%s': %s", name, e.toString());
        }
        return SkillCatalog.super.find(name);
    }

    /**
     * Re-reads the workspace skills of {@code target} (glob + read_file through the executor); through a
     * {@link WorkspaceReadCache}, the team's kept list while it is fresh.
     */
    public void refresh(WorkspaceToolExecutor workspace, WorkspaceToolExecutor.Target target) {
        lastWorkspace = workspace;
        lastTarget = target;
        List<Skill> found = workspace instanceof WorkspaceReadCache cache
                ? cache.get(CACHED, target, () -> read(cache, target))
                : read(workspace, target).value();
        merged = sorted(bundled, found);
    }

    /** The workspace skills (kept only when the glob and every read of them succeeded). */
    private static WorkspaceReadCache.Read<List<Skill>> read(WorkspaceToolExecutor workspace,
            WorkspaceToolExecutor.Target target) {
        ObjectNode globArgs = Json.MAPPER.createObjectNode().put("pattern", "skills/*/SKILL.md");
        ToolOutcome listing = workspace.execute("glob", "skills-glob-" + SEQ.incrementAndGet(), globArgs, target);
        List<Skill> found = new ArrayList<>();
        boolean complete = !listing.isError();
        if (!listing.isError() && listing.output() != null) {
            Matcher m = SKILL_PATH.matcher(listing.output());
            while (m.find()) {
                ObjectNode readArgs = Json.MAPPER.createObjectNode().put("path", m.group(1)).put("limit", 5000);
                ToolOutcome file = workspace.execute("read_file", "skills-read-" + SEQ.incrementAndGet(), readArgs, target);
                if (file.isError() || file.output() == null) {
                    LOG.warnf("cannot read %s: %s", m.group(1), file.error());
                    complete = false;
                    continue;
                }
                found.add(Frontmatter.toSkill(m.group(2), stripLineNumbers(file.output()), Skill.WORKSPACE, m.group(1)));
            }
        }
        return new WorkspaceReadCache.Read<>(List.copyOf(found), complete);
    }

    /** read_file numbers lines ({@code cat -n} style); a skill's text is the file without them. */
    static String stripLineNumbers(String out) {
        if (!NUMBERED.matcher(out).find()) {
            return out;
        }
        StringBuilder sb = new StringBuilder();
        for (String line : out.split("\n", -1)) {
            Matcher m = NUMBERED.matcher(line);
            if (m.find() && m.start() == 0) {
                sb.append(line.substring(m.end())).append('\n');
            } else if (!line.startsWith("[… ")) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }

    private static List<Skill> sorted(List<Skill> bundled, List<Skill> workspace) {
        Map<String, Skill> byName = new TreeMap<>();
        bundled.forEach(s -> byName.put(s.name(), s));
        workspace.forEach(s -> byName.put(s.name(), s));
        return List.copyOf(byName.values());
    }
}
