-- demo store: write the new stock and record the sale in one step, optionally fenced.
--
-- KEYS[1]  stock key   KEYS[2]  fence key   KEYS[3]  sales counter   KEYS[4]  hash item number -> times sold
-- ARGV[1]  new stock   ARGV[2]  item number sold   ARGV[3]  fencing token, or 0 for an unfenced write
--
-- Returns 1 if written, 0 if rejected because the token is lower than one the store has seen.
local token = tonumber(ARGV[3])
if token > 0 then
  local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
  if token < fence then
    return 0
  end
  redis.call('SET', KEYS[2], ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[3])
redis.call('HINCRBY', KEYS[4], ARGV[2], 1)
return 1
