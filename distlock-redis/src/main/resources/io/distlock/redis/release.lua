-- distlock release: free the lock only if this owner holds it, and wake waiters.
--
-- KEYS[1]  the lock key
-- ARGV[1]  owner id of the acquisition being released
-- ARGV[2]  release notification channel of this lock
-- ARGV[3]  how long the tombstone keeps the last fencing token, in milliseconds
-- ARGV[4]  'sharded' to notify with SPUBLISH (Redis Cluster: only the shard of the lock hears it)
--
-- The key holds "<token>:<owner id>" while held. Releasing leaves the tombstone
-- "<token>::released:<owner id>", which remembers the last token and who released it; a force-unlock
-- leaves "<token>::forced:<request id>:<owner id>" (see force-unlock.lua). Any value whose part after
-- the first ':' is empty or starts with ':' is a tombstone: the lock is free.
--
-- Returns 1 if released, also when this owner had released it already (the same request sent again
-- after a reconnect: the first one ran, its reply was lost); 2 if another owner holds the lock; 3 if
-- a force-unlock ended this owner's hold; 0 if there is no trace of this owner's hold (it expired, a
-- restart or failover lost it, or another owner's tombstone is there). Only a 1 on a held key changes
-- anything.
local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local sep = string.find(value, ':', 1, true)
if not sep then
  return 0
end
local owner = string.sub(value, sep + 1)
if owner == ARGV[1] then
  redis.call('SET', KEYS[1], string.sub(value, 1, sep) .. ':released:' .. ARGV[1], 'PX', ARGV[3])
  redis.call(ARGV[4] == 'sharded' and 'SPUBLISH' or 'PUBLISH', ARGV[2], 'released')
  return 1
end
if owner ~= '' and string.sub(owner, 1, 1) ~= ':' then
  return 2
end
if owner == ':released:' .. ARGV[1] then
  return 1
end
if string.sub(owner, 1, 8) == ':forced:' then
  local ended = string.find(owner, ':', 9, true)
  if ended and string.sub(owner, ended + 1) == ARGV[1] then
    return 3
  end
end
return 0
