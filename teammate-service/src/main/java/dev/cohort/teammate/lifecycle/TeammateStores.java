package dev.cohort.teammate.lifecycle;

import dev.cohort.host.store.PgInbox;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** agent-host's stores over this service's schema: the teammates' inboxes in {@code teammate.inbox}. */
@ApplicationScoped
public class TeammateStores {

    /** The teammates' inboxes (deduped on message id; marked injected in the save that contains them). */
    @Produces
    @Singleton
    PgInbox inbox(AgroalDataSource ds) {
        return new PgInbox(ds, "teammate");
    }
}
