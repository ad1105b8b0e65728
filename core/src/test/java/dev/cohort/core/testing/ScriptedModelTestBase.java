package dev.cohort.core.testing;

import dev.cohort.devstack.model.ScriptedModelServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One scripted model server (over real HTTP) per test class, emptied before each test: the set-up every engine
 * scenario test shares. A subclass loads its scenario in its own {@code @BeforeEach} or in the test.
 */
public abstract class ScriptedModelTestBase {

    protected static ScriptedModelServer model;

    @BeforeAll
    static void startModel() {
        model = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stopModel() {
        model.close();
    }

    @BeforeEach
    void resetModel() {
        model.reset();
    }
}
