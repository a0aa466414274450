-- distlock fenced write: apply one write (or a fenced read) to a key only if the caller's fencing token is not below
-- the highest token the key has seen, and record the token, atomically.
--
-- KEYS[1]  the data key
-- KEYS[2]  its token key, in the same Cluster slot (FencedRedis.tokenKey)
-- ARGV[1]  the writer's fencing token: a positive decimal integer without leading zeros, up to 2^63 - 1
-- ARGV[2]  the write: SET, HSET, INCRBY, DECRBY, DEL or RPUSH; or GET, a fenced read: it records the token too, so a
--          holder that read with an older token cannot write after a newer holder has only read
-- ARGV[3..] the write's arguments after the key
--
-- Tokens are compared as decimal strings (length first, then digits): Lua numbers are doubles and would round
-- tokens above 2^53. Returns {1, <the write's reply>} when applied; {0, <highest token seen>} when the token is
-- below it, and then nothing was written.
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local token = ARGV[1]
local highest = redis.call('GET', KEYS[2])
if highest and below(token, highest) then
  return {0, highest}
end
local write = ARGV[2]
if write ~= 'SET' and write ~= 'HSET' and write ~= 'INCRBY' and write ~= 'DECRBY' and write ~= 'DEL'
    and write ~= 'RPUSH' and write ~= 'GET' then
  return redis.error_reply('DISTLOCK_FENCING unknown write ' .. write)
end
local reply = redis.call(write, KEYS[1], unpack(ARGV, 3))
if not highest or highest ~= token then
  redis.call('SET', KEYS[2], token)
end
if type(reply) == 'table' and reply.ok then
  reply = reply.ok
end
return {1, reply}
