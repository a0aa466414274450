-- distlock force-unlock: free the lock whoever holds it (administrative), and wake waiters.
--
-- KEYS[1]  the lock key
-- ARGV[1]  release notification channel of this lock
-- ARGV[2]  how long the tombstone keeps the last fencing token, in milliseconds (at least)
-- ARGV[3]  'sharded' to notify with SPUBLISH (Redis Cluster)
-- ARGV[4]  request id, unique per force-unlock call (no ':')
--
-- Leaves the tombstone "<token>::forced:<request id>:<owner id>": the holder's next renewal or release
-- learns that a force-unlock ended its hold (release.lua, renew.lua answer 3), and the same request
-- sent again after a reconnect (the first one ran, its reply was lost) answers 1 again. The tombstone
-- lasts at least as long as the holder's lease had left, so the holder hears it on its next renewal.
--
-- Returns 1 if the lock was held and is now free (or this request had freed it), 0 if it was free.
local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local sep = string.find(value, ':', 1, true)
if not sep then
  return 0
end
local owner = string.sub(value, sep + 1)
if owner == '' or string.sub(owner, 1, 1) == ':' then
  local mine = ':forced:' .. ARGV[4] .. ':'
  if string.sub(owner, 1, string.len(mine)) == mine then
    return 1
  end
  return 0
end
local keep = math.max(tonumber(ARGV[2]), redis.call('PTTL', KEYS[1]))
redis.call('SET', KEYS[1], string.sub(value, 1, sep) .. ':forced:' .. ARGV[4] .. ':' .. owner, 'PX', keep)
redis.call(ARGV[3] == 'sharded' and 'SPUBLISH' or 'PUBLISH', ARGV[1], 'released')
return 1
