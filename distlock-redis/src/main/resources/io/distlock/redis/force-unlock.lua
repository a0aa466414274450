-- distlock force-unlock: free the lock whoever holds it (administrative), and wake waiters.
--
-- KEYS[1]  the lock key
-- ARGV[1]  release notification channel of this lock
-- ARGV[2]  how long the tombstone keeps the last fencing token, in milliseconds
-- ARGV[3]  'sharded' to notify with SPUBLISH (Redis Cluster)
--
-- Returns 1 if the lock was held and is now free, 0 if it was free.
local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local sep = string.find(value, ':', 1, true)
if not sep or sep == string.len(value) then
  return 0
end
redis.call('SET', KEYS[1], string.sub(value, 1, sep), 'PX', ARGV[2])
redis.call(ARGV[3] == 'sharded' and 'SPUBLISH' or 'PUBLISH', ARGV[1], 'released')
return 1
