package io.distlock.redis;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the doctor's user (the application's) may run every command the Redis backend sends, on its keys and
 * channels: asked with ACL DRYRUN (Redis 7), which runs nothing. The lock scripts' own commands (SET, ZADD, PUBLISH...)
 * are checked too: an ACL checks them when the script runs them, so a user allowed EVALSHA but not ZADD acquires plain
 * locks and fails on the first fair lock.
 */
final class RedisPermissions {
    static final DoctorCheck CHECK = new DoctorCheck("redis.permissions", "whether the user may run every command the backend "
            + "sends, on its key prefix and channels (ACL WHOAMI, ACL DRYRUN: nothing is run)", "",
            "a command or the key prefix is denied: acquires, releases or renewals of some kinds fail with NOPERM",
            "every command allowed on ~<prefix>* and &<prefix>*",
            "ACL SETUSER <user> ~<prefix>* &<prefix>* +evalsha +eval +get +subscribe +unsubscribe +publish +wait and the scripts' "
                    + "commands (+set +pexpire +pexpireat +pttl +exists +time +@hash +@sortedset), or +@all on those keys");

    private RedisPermissions() {}

    /** Returns the permissions finding for keys under {@code prefix}. */
    static Finding check(RedisCommands<String, String> redis, String prefix, int minReplicas) {
        String key = prefix + "{distlock-doctor}";
        String channel = key + ":released";
        List<List<String>> commands = new ArrayList<>(List.of(
                List.of("EVALSHA", "0000000000000000000000000000000000000000", "1", key), List.of("EVAL", "return 0", "1", key),
                List.of("GET", key), List.of("SUBSCRIBE", channel), List.of("UNSUBSCRIBE", channel), List.of("PUBLISH", channel, "x"),
                List.of("SET", key, "x", "PX", "1"), List.of("PEXPIRE", key, "1"), List.of("PEXPIREAT", key, "1"), List.of("PTTL", key),
                List.of("EXISTS", key), List.of("TIME"), List.of("HSET", key, "f", "v"), List.of("HGET", key, "f"), List.of("HDEL", key, "f"),
                List.of("HINCRBY", key, "f", "1"), List.of("HEXISTS", key, "f"), List.of("HMGET", key, "f"), List.of("ZADD", key, "1", "m"),
                List.of("ZREM", key, "m"), List.of("ZRANGE", key, "0", "-1"), List.of("ZRANGEBYSCORE", key, "0", "1"), List.of("ZCARD", key),
                List.of("ZSCORE", key, "m")));
        if (minReplicas > 0) {
            commands.add(List.of("WAIT", "1", "0"));
        }
        String user;
        try {
            user = acl(redis, List.of("WHOAMI"));
        } catch (RedisException e) {
            return CHECK.unknown("ACL WHOAMI refused: " + e.getMessage(), "without ACL WHOAMI and ACL DRYRUN (Redis 7, the +acl "
                    + "permission) the doctor cannot ask which commands the user may run; a denied one shows as NOPERM when it is sent");
        }
        List<String> denied = new ArrayList<>();
        try {
            for (List<String> command : commands) {
                List<String> args = new ArrayList<>(List.of("DRYRUN", user));
                args.addAll(command);
                String answer = acl(redis, args);
                if (!"OK".equals(answer)) {
                    denied.add(command.get(0) + " (" + answer + ")");
                }
            }
        } catch (RedisException e) {
            return CHECK.unknown("user " + user + "; ACL DRYRUN refused: " + e.getMessage(), "without ACL DRYRUN (Redis 7, the +acl "
                    + "permission) the doctor cannot ask which commands the user may run; a denied one shows as NOPERM when it is sent");
        }
        String observed = "user " + user + ", prefix " + prefix + ": " + (denied.isEmpty() ? "all " + commands.size() + " commands allowed"
                : denied.size() + " of " + commands.size() + " denied: " + String.join("; ", denied));
        if (!denied.isEmpty()) {
            return CHECK.finding(Severity.RISKY, observed, "Redis refuses these with NOPERM when the backend sends them: the locks "
                    + "that need them cannot be acquired, renewed or released", CHECK.fix());
        }
        return CHECK.ok(observed, "the user may run everything the backend sends on its keys and channels");
    }

    private static String acl(RedisCommands<String, String> redis, List<String> args) {
        CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
        args.forEach(commandArgs::add);
        return redis.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), commandArgs);
    }
}
