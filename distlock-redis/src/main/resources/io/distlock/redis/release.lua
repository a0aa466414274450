-- distlock release: free the lock only if this owner holds it, and wake waiters.
--
-- KEYS[1]  the lock key
-- ARGV[1]  owner id of the acquisition being released
-- ARGV[2]  release notification channel of this lock
-- ARGV[3]  how long the tombstone keeps the last fencing token, in milliseconds
-- ARGV[4]  'sharded' to notify with SPUBLISH (Redis Cluster: only the shard of the lock hears it)
--
-- Returns 1 if released, 0 if the lock was not held by this owner (expired, taken over, or
-- force-unlocked); in that case nothing is changed.
local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local sep = string.find(value, ':', 1, true)
if not sep or string.sub(value, sep + 1) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], string.sub(value, 1, sep), 'PX', ARGV[3])
redis.call(ARGV[4] == 'sharded' and 'SPUBLISH' or 'PUBLISH', ARGV[2], 'released')
return 1
