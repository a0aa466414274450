-- demo store: read the stock, optionally fenced.
--
-- KEYS[1]  stock key          KEYS[2]  fence key (highest token seen)
-- ARGV[1]  fencing token, or 0 for an unfenced read
--
-- Returns the stock, or -1 if the token is lower than one the store has already seen (a stale holder).
-- A fenced read records its token, so a stale holder that read earlier cannot write after a newer one read.
local token = tonumber(ARGV[1])
if token > 0 then
  local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
  if token < fence then
    return -1
  end
  redis.call('SET', KEYS[2], ARGV[1])
end
return tonumber(redis.call('GET', KEYS[1]) or '0')
