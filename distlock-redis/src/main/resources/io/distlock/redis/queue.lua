-- distlock queued locks: fair locks, read-write locks and semaphores with leased permits, granted on
-- release. Server time only (TIME): no client clock enters a deadline.
--
-- KEYS[1]  state hash  <prefix>{<name>}:<kind>
--            token       last fencing token issued (tokens = max(last + 1, TIME in microseconds))
--            seq         arrival counter of the queue
--            held        number of holders (pending grants included)
--            writer      owner id of the exclusive holder, if one holds
--            cap         the semaphore's number of permits, while it is in use
--            t:<owner>   fencing token of a holder
--            l:<member>  lease in ms a waiter asked for
--            f:<owner>   set when a force-unlock ended that owner's hold (its next renew/release learns it)
-- KEYS[2]  queue zset  <state>:queue      member <mode><owner id> -> arrival number; mode 'w' exclusive,
--                                          'r' shared reader, 's' semaphore permit
-- KEYS[3]  deadlines zset <state>:deadlines  'h'<owner id> -> lease expiry of a holder (server ms);
--                                          <mode><owner id> -> heartbeat deadline of a waiter (server ms)
-- ARGV[1]  operation: acquire | check | leave | renew | release | force | downgrade | count | held
-- ARGV[2]  channel on which grants are published (the same slot as the keys)
-- ARGV[3]  'sharded' to publish with SPUBLISH (Redis Cluster)
-- ARGV[4]  how long an idle lock's state keeps its last token, in ms
-- ARGV[5]  the semaphore's permits (0 for locks)
-- ARGV[6]  the heartbeat window in ms: a waiter that does not check within it is dropped from the queue,
--          and a grant made on its behalf lasts that long (at most its lease) until it claims it
-- ARGV[7..] per operation:
--   acquire   owner, mode, lease ms                 -> {1, token} granted | {0, last token issued, next} queued, where next
--             is how many ms until the first holder lease or waiter heartbeat runs out (the queue may move then
--             without anyone's call: a holder that died without releasing publishes nothing)
--             (a retried acquire of a holder extends its lease; of a waiter refreshes its heartbeat)
--   check     owner, mode, lease ms                 -> {1, token} held (the lease now runs from this call)
--             | {0, last token issued, next} still queued (heartbeat refreshed); a waiter dropped meanwhile (its heartbeat or
--             its pending grant ran out) joins again at the tail, as acquire would
--   leave     owner, mode                           -> 1 left the queue (or gave up a grant), 0 not there
--   renew     owner, lease ms                       -> 1 renewed | 3 force-unlocked | 0 no hold of this owner
--   release   owner; KEYS[4] = <state>:released:<owner>, a marker kept 10 s so that a replayed release
--             (sent again after a reconnect) answers 1 again
--                                                   -> 1 released (or released before) | 3 force-unlocked | 0 no hold
--   force     mode ('w' the writer, 'r'/'s' every shared holder) -> number of holds ended
--   downgrade writer owner, reader owner, lease ms  -> {1, token} if the writer holds | {0, 0}
--   count     -> free permits (cap - holders)
--   held      mode -> 1 if a holder of that mode holds, else 0
--
-- Granting (advance): while the head of the queue may be granted (an exclusive waiter when nobody holds,
-- a reader while no writer holds, a permit while fewer than cap are held), it becomes a holder with a new
-- token and a short pending lease (its heartbeat window, at most its lease); its own next check or renew
-- claims the full lease. Every grant is published once, as 'owner:token:pending lease ms' (several joined
-- by commas), so the waiter usually learns it at once and holds from then on, without another call: the
-- grant came after its last call that answered 'queued' (whose last token is lower than the grant's), so
-- the pending lease counted from that call's send time ends before it ends here. A missed message costs
-- at most one heartbeat. Readers at the head are granted together; a reader behind a waiting writer
-- waits (writer-preferring). Every call first drops holders whose lease ran out and waiters whose heartbeat
-- ran out, then grants onward: Redis has no timers, so whoever touches the lock moves it on.
local state, queue, deadlines = KEYS[1], KEYS[2], KEYS[3]
local op, channel, sharded, memory, cap = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local heartbeat = tonumber(ARGV[6])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])

local function num(field)
  return tonumber(redis.call('HGET', state, field) or '0')
end

-- Every redis.call costs about 2 us of Redis CPU on top of the command itself, far more than the work of most
-- of them here; so the script remembers what it learned. queue_empty: true when this script knows the queue is
-- empty (its key does not exist), false when it knows it is not, nil when it does not know.
local queue_empty = nil

local function queue_is_empty()
  if queue_empty == nil then
    queue_empty = redis.call('ZCARD', queue) == 0
  end
  return queue_empty
end

local function holds(owner)
  return redis.call('ZSCORE', deadlines, 'h' .. owner)
end

local function drop_holder(owner)
  redis.call('ZREM', deadlines, 'h' .. owner)
  if redis.call('HGET', state, 'writer') == owner then
    redis.call('HDEL', state, 't:' .. owner, 'writer')
  else
    redis.call('HDEL', state, 't:' .. owner)
  end
  redis.call('HINCRBY', state, 'held', -1)
end

local function drop_waiter(member)
  queue_empty = nil
  redis.call('ZREM', queue, member)
  redis.call('ZREM', deadlines, member)
  redis.call('HDEL', state, 'l:' .. member)
end

local function can_grant(mode)
  local held = num('held')
  if mode == 'w' then
    return held == 0
  elseif mode == 'r' then
    return redis.call('HEXISTS', state, 'writer') == 0
  end
  return held < cap
end

-- makes owner a holder with a new token (max(last + 1, TIME in microseconds)) and a lease until expiry
local function make_holder(owner, mode, expiry)
  local last = redis.call('HMGET', state, 'token', 'held')
  local token = math.max(tonumber(last[1] or '0') + 1, micros)
  local shown = string.format('%.0f', token)
  local held = tonumber(last[2] or '0') + 1
  if mode == 'w' then
    redis.call('HSET', state, 'token', shown, 't:' .. owner, shown, 'held', held, 'writer', owner)
  else
    redis.call('HSET', state, 'token', shown, 't:' .. owner, shown, 'held', held)
  end
  redis.call('ZADD', deadlines, expiry, 'h' .. owner)
  return token
end

-- grants from the head of the queue while it may be granted; publishes the grants, if any
local function advance()
  local granted = {}
  while queue_empty ~= true do
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    queue_empty = head == nil
    if not head then
      break
    end
    local mode = string.sub(head, 1, 1)
    if not can_grant(mode) then
      break
    end
    local lease = tonumber(redis.call('HGET', state, 'l:' .. head) or heartbeat)
    local pending = math.min(lease, heartbeat)
    drop_waiter(head)
    local token = make_holder(string.sub(head, 2), mode, now + pending)
    granted[#granted + 1] = string.sub(head, 2) .. ':' .. string.format('%.0f', token) .. ':' .. pending
  end
  if #granted > 0 then
    redis.call(sharded == 'sharded' and 'SPUBLISH' or 'PUBLISH', channel, table.concat(granted, ','))
  end
end

-- drops what ran out (holders' leases, waiters' heartbeats), then grants onward
local function touch()
  local due = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now)
  for _, member in ipairs(due) do
    if string.sub(member, 1, 1) == 'h' then
      drop_holder(string.sub(member, 2))
    else
      drop_waiter(member)
    end
  end
  advance()
end

-- keeps the keys as long as their latest deadline, plus the token memory; an idle lock keeps only its token
-- (an empty sorted set does not exist, so it needs no expiry)
local function keep()
  local last = redis.call('ZRANGE', deadlines, -1, -1, 'WITHSCORES')[2]
  local until_ms = (last and math.max(tonumber(last), now) or now) + memory
  redis.call('PEXPIREAT', state, until_ms)
  if queue_empty ~= true then
    redis.call('PEXPIREAT', queue, until_ms)
  end
  if last then
    redis.call('PEXPIREAT', deadlines, until_ms)
  end
end

-- returns an error if the semaphore is in use with another number of permits
local function check_cap()
  if cap == 0 then
    return nil
  end
  local current = num('cap')
  if current ~= 0 and current ~= cap and (num('held') > 0 or not queue_is_empty()) then
    return 'DISTLOCK_PERMITS the semaphore is in use with ' .. current .. ' permits, asked with ' .. cap
  end
  if current ~= cap then
    redis.call('HSET', state, 'cap', cap)
  end
  return nil
end

-- ms until the first deadline (a holder's lease, a waiter's heartbeat, ours included) runs out: the queue may move then
local function next_deadline()
  local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')[2]
  return first and math.max(0, tonumber(first) - now) or 0
end

-- acquire for a caller that neither holds nor waits: granted at once, or queued at the tail
local function join(owner, mode, lease)
  local member = mode .. owner
  if queue_is_empty() and can_grant(mode) then
    return {1, make_holder(owner, mode, now + lease)}
  end
  queue_empty = false
  redis.call('ZADD', queue, redis.call('HINCRBY', state, 'seq', 1), member)
  redis.call('ZADD', deadlines, now + heartbeat, member)
  redis.call('HSET', state, 'l:' .. member, lease)
  return {0, num('token'), next_deadline()}
end

local result
if op == 'acquire' or op == 'check' then
  local owner, mode, lease = ARGV[7], ARGV[8], tonumber(ARGV[9])
  local bad = check_cap()
  if bad then
    return redis.error_reply(bad)
  end
  touch()
  if holds(owner) then
    redis.call('ZADD', deadlines, now + lease, 'h' .. owner) -- the claim: the full lease runs from now
    result = {1, num('t:' .. owner)}
  elseif not queue_is_empty() and redis.call('ZSCORE', queue, mode .. owner) then
    redis.call('ZADD', deadlines, now + heartbeat, mode .. owner)
    result = {0, num('token'), next_deadline()}
  else
    result = join(owner, mode, lease)
  end
elseif op == 'leave' then
  local owner, mode = ARGV[7], ARGV[8]
  touch()
  result = 0
  if redis.call('ZSCORE', queue, mode .. owner) then
    drop_waiter(mode .. owner)
    result = 1
  elseif holds(owner) then
    drop_holder(owner) -- granted while it gave up: pass it on
    result = 1
  end
  advance()
elseif op == 'renew' then
  local owner, lease = ARGV[7], tonumber(ARGV[8])
  touch()
  if holds(owner) then
    redis.call('ZADD', deadlines, now + lease, 'h' .. owner)
    result = 1
  elseif redis.call('HDEL', state, 'f:' .. owner) == 1 then
    result = 3
  else
    result = 0
  end
elseif op == 'release' then
  local owner = ARGV[7]
  touch()
  if holds(owner) then
    drop_holder(owner)
    redis.call('SET', KEYS[4], 1, 'PX', 10000)
    advance()
    result = 1
  elseif redis.call('EXISTS', KEYS[4]) == 1 then
    result = 1
  elseif redis.call('HDEL', state, 'f:' .. owner) == 1 then
    result = 3
  else
    result = 0
  end
elseif op == 'force' then
  local mode = ARGV[7]
  touch()
  local writer = redis.call('HGET', state, 'writer')
  local ended = {}
  for _, member in ipairs(redis.call('ZRANGE', deadlines, 0, -1)) do
    if string.sub(member, 1, 1) == 'h' then
      local owner = string.sub(member, 2)
      if (mode == 'w') == (owner == writer) then
        ended[#ended + 1] = owner
      end
    end
  end
  for _, owner in ipairs(ended) do
    drop_holder(owner)
    redis.call('HSET', state, 'f:' .. owner, 1)
  end
  advance()
  result = #ended
elseif op == 'downgrade' then
  local writer, reader, lease = ARGV[7], ARGV[8], tonumber(ARGV[9])
  touch()
  if redis.call('HGET', state, 'writer') == writer and holds(writer) then
    result = {1, make_holder(reader, 'r', now + lease)}
  else
    result = {0, 0}
  end
elseif op == 'count' then
  touch()
  result = math.max(0, cap - num('held'))
elseif op == 'held' then
  touch()
  local writer = redis.call('HEXISTS', state, 'writer')
  if ARGV[7] == 'w' then
    result = writer
  else
    result = (num('held') - writer > 0) and 1 or 0
  end
else
  return redis.error_reply('ERR distlock queue.lua: unknown operation ' .. tostring(op))
end
keep()
return result
