-- distlock renew: extend the leases of several locks, each only if still held by its owner.
--
-- KEYS[1..n]  lock keys
-- ARGV[2i-1]  owner id for KEYS[i]
-- ARGV[2i]    new lease time in milliseconds for KEYS[i]
--
-- Returns a list of n integers: 1 if KEYS[i] was renewed, 0 if it is no longer held by its owner
-- (nothing is changed for that key).
local renewed = {}
for i, key in ipairs(KEYS) do
  local owner = ARGV[2 * i - 1]
  local value = redis.call('GET', key)
  local sep = value and string.find(value, ':', 1, true)
  if sep and string.sub(value, sep + 1) == owner then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
