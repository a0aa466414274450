-- distlock acquire: take the lock if it is free, or confirm it for the same owner (a retried request).
--
-- KEYS[1]  the lock key, e.g. distlock:{orders}. While held it holds "<token>:<owner id>" with a PX
--          expiry of the lease; once free it may hold a tombstone that remembers the last fencing token
--          for a while (so the next token is larger even within one microsecond): any value whose part
--          after the first ':' is empty or starts with ':' (see release.lua). A tombstone is free.
-- ARGV[1]  owner id of this acquisition (unique per acquisition)
-- ARGV[2]  lease time in milliseconds
-- ARGV[3]  how many consecutive tokens to reserve, at least 1 (for the holder's local handoffs); the key keeps the
--          last of them, so every later grant gets a larger token. A range never reaches more than 1,000 past the
--          server's TIME in microseconds (it is cut short instead): tokens reserved faster than the clock runs would
--          otherwise build a lead, and the first grant after a restart or an expired key (TIME alone) would be lower.
--
-- Returns {1, token, last} when the caller holds the lock (token .. last are its tokens), {0, pttl} when another
-- owner holds it (pttl: milliseconds left on the holder's lease, -1 if the key has no expiry). The same request sent
-- again after a lost reply finds its own hold and gets {1, last, last}: the range's last token alone (the first reply
-- was lost, so none of the range was used; a smaller one would be unsafe if the range had been cut short).
--
-- Fencing token = max(last token + 1, server TIME in microseconds). The TIME term keeps tokens
-- increasing after the key expired or the server restarted without persistence, without keeping a
-- key per lock name forever. Server time only: no client clock is involved.
local count = tonumber(ARGV[3]) or 1
local value = redis.call('GET', KEYS[1])
local last = 0
if value then
  local sep = string.find(value, ':', 1, true)
  if not sep then
    return redis.error_reply('WRONGTYPE distlock key ' .. KEYS[1] .. ' holds a value distlock did not write')
  end
  local owner = string.sub(value, sep + 1)
  last = tonumber(string.sub(value, 1, sep - 1)) or 0
  if owner == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, last, last}
  end
  if owner ~= '' and string.sub(owner, 1, 1) ~= ':' then
    return {0, redis.call('PTTL', KEYS[1])}
  end
end
local now = redis.call('TIME')
local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
local token = math.max(last + 1, micros)
local reserved = math.max(token, math.min(token + count - 1, micros + 1000))
redis.call('SET', KEYS[1], string.format('%.0f', reserved) .. ':' .. ARGV[1], 'PX', ARGV[2])
return {1, token, reserved}
