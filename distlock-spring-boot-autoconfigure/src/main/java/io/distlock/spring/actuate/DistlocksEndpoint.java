package io.distlock.spring.actuate;

import io.distlock.spring.HeldLocks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The read-only {@code distlocks} Actuator endpoint: the locks this instance holds, with backend, fencing
 * token, how long held, lease left, and renewal failures. Expose it with
 * {@code management.endpoints.web.exposure.include=distlocks}.
 */
@Endpoint(id = "distlocks")
public class DistlocksEndpoint {
    private final HeldLocks held;

    public DistlocksEndpoint(HeldLocks held) {
        this.held = held;
    }

    /** Returns {@code {"backend": ..., "locks": [...]}}, durations in milliseconds. */
    @ReadOperation
    public Map<String, Object> locks() {
        List<Map<String, Object>> locks = held.list().stream().map(lock -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", lock.name());
            row.put("backend", lock.backend());
            row.put("fencingToken", lock.fencingToken());
            row.put("heldForMillis", lock.heldFor().toMillis());
            row.put("leaseLeftMillis", lock.leaseLeft().toMillis());
            row.put("valid", lock.valid());
            row.put("renewalFailures", lock.renewalFailures());
            return row;
        }).toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("backend", held.backend());
        body.put("locks", locks);
        return body;
    }
}
