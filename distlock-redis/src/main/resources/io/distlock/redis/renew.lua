-- distlock renew: extend the leases of several locks, each only if still held by its owner.
--
-- KEYS[1..n]  lock keys
-- ARGV[2i-1]  owner id for KEYS[i]
-- ARGV[2i]    new lease time in milliseconds for KEYS[i]
--
-- Values as in release.lua: "<token>:<owner id>" while held; tombstones "<token>::released:<owner id>",
-- "<token>::forced:<request id>:<owner id>" or "<token>:" once free.
--
-- Returns a list of n integers: 1 if KEYS[i] was renewed; 2 if another owner holds it; 3 if a
-- force-unlock ended this owner's hold; 0 if there is no trace of this owner's hold (expired, lost by
-- a restart or failover, or released). Nothing is changed for a key that is not renewed.
local renewed = {}
for i, key in ipairs(KEYS) do
  local owner = ARGV[2 * i - 1]
  local value = redis.call('GET', key)
  local sep = value and string.find(value, ':', 1, true)
  local found = sep and string.sub(value, sep + 1) or ''
  if sep and found == owner then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    renewed[i] = 1
  elseif found ~= '' and string.sub(found, 1, 1) ~= ':' then
    renewed[i] = 2
  else
    renewed[i] = 0
    if string.sub(found, 1, 8) == ':forced:' then
      local ended = string.find(found, ':', 9, true)
      if ended and string.sub(found, ended + 1) == owner then
        renewed[i] = 3
      end
    end
  end
end
return renewed
