package dev.cohort.lead.memory;

import dev.cohort.core.memory.CachedMemoryStore;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.tools.MemoryDeleteTool;
import dev.cohort.core.memory.tools.MemoryWriteTool;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.List;
import java.util.Map;

/** {@code memory_write} / {@code memory_delete} over the team's memories in {@code lead.memories}. */
@ApplicationScoped
public class LeadMemoryToolProvider extends RoleTools {

    @Inject
    AgroalDataSource ds;

    LeadMemoryToolProvider() {
        super(20, AgentRole.LEAD);
    }

    /** Per team: its memories as last read, shared by the tools, the prompt and extraction ({@link CachedMemoryStore}). */
    private final Map<String, CachedMemoryStore> teams = new ConcurrentHashMap<>();

    /**
     * Each team's memory store; the engine's memory manager reads and extracts through the same. The prompt of every
     * model call reads the team's memories: from a copy kept per team, dropped by every write through it and at the
     * start of each turn (another replica may have written since), so a round does not read them from PostgreSQL.
     */
    public Function<String, MemoryStore> stores() {
        AgroalDataSource d = ds;
        return team -> teams.computeIfAbsent(team, t -> new CachedMemoryStore(new PgMemoryStore(d, t)));
    }

    @Override
    public List<Tool> tools() {
        Function<String, MemoryStore> stores = stores();
        return List.of(new MemoryWriteTool(stores), new MemoryDeleteTool(stores));
    }
}
