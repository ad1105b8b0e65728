package dev.cohort.core.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.Objects;
import java.util.Set;

/**
 * A tool that adds to another: its spec, roles, mutability and permission subject are the wrapped tool's, and
 * {@link #execute} runs it unless a subclass does more around it (e.g. the lead binding a worktree the tool runner made
 * to a task of its board). The wrapped tool stays declared once, where it runs.
 */
public abstract class ForwardingTool implements Tool {
    private final Tool delegate;

    protected ForwardingTool(Tool delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The wrapped tool. */
    protected final Tool delegate() {
        return delegate;
    }

    @Override
    public final String name() {
        return delegate.name();
    }

    @Override
    public final ToolSpecification spec() {
        return delegate.spec();
    }

    @Override
    public final Set<AgentRole> roles() {
        return delegate.roles();
    }

    @Override
    public final boolean isMutating() {
        return delegate.isMutating();
    }

    @Override
    public final PermissionSubject permissionSubject(ObjectNode args) {
        return delegate.permissionSubject(args);
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return delegate.execute(call, ctx);
    }
}
