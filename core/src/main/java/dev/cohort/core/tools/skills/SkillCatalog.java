package dev.cohort.core.tools.skills;

import java.util.List;
import java.util.Optional;

/** The skills an agent can load: the catalogue for the system prompt and lookup by name. */
public interface SkillCatalog {

    /** All skills, sorted by name (a workspace skill shadows a bundled one of the same name). */
    List<Skill> list();

    /** The skill named {@code name}, if any. */
    default Optional<Skill> find(String name) {
        return list().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** No skills at all. */
    static SkillCatalog empty() {
        return List::of;
    }
}
