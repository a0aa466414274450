-- distlock queued locks: fair locks, read-write locks and semaphores with leased permits, granted on
-- release. Server time only (TIME): no client clock enters a deadline.
--
-- KEYS[1]  state hash  <prefix>{<name>}:<kind>
--            token       last fencing token issued (tokens = max(last + 1, TIME in microseconds))
--            seq         arrival counter of the queue
--            held        number of holders (pending grants included)
--            writer      owner id of the exclusive holder, if one holds
--            cap         the semaphore's number of permits, while it is in use: every grant counts against it,
--                        whatever number the caller asked with (only acquire and check compare the two)
--            t:<owner>   fencing token of a holder
--            l:<member>  lease in ms a waiter asked for
-- KEYS[2]  queue zset  <state>:queue      member <mode><owner id> -> arrival number; mode 'w' exclusive,
--                                          'r' shared reader, 's' semaphore permit
-- KEYS[3]  deadlines zset <state>:deadlines  'h'<owner id> -> lease expiry of a holder (server ms);
--                                          <mode><owner id> -> heartbeat deadline of a waiter (server ms);
--                                          'f'<owner id> -> until when a force-unlocked holder's next renew or
--                                          release is told so (its lease expiry at the force-unlock), dropped then
-- ARGV[1]  operation: acquire | check | leave | renew | release | force | downgrade | count | held
-- ARGV[2]  base of the channels on which grants are published (the same slot as the keys): a grant to owner
--          '<client>-<n>' goes to '<base>:<client>', the channel only that owner's client listens on for this lock
--          (an owner id without '-' is its own client), so a grant wakes one client, not every client that waits
-- ARGV[3]  'sharded' to publish with SPUBLISH (Redis Cluster); 'defer' to publish nothing and answer
--          {answer, grants} instead, where grants is the message this call would have published ('' if it
--          granted nobody): the client publishes it once replicas have acknowledged the call (minReplicas), so
--          that no waiter holds a grant that a failover can lose
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
--   force     mode ('w' the writer, 'r'/'s' every shared holder, 'a' every holder: writer and readers at one
--             instant), request id; KEYS[4] = <state>:forced:<request id>, which keeps the answer 60 s so that a
--             replayed force-unlock ends no hold granted after the first one ran
--                                                   -> number of holds ended (by this request)
--   downgrade writer owner, reader owner, lease ms  -> {1, token} if the writer holds (or the reader holds already:
--             a replayed downgrade extends that hold and answers its token) | {0, 0}
--   count     -> free permits (cap - holders)
--   held      mode -> 1 if a holder of that mode holds, else 0
--
-- Granting (advance): while the head of the queue may be granted (an exclusive waiter when nobody holds,
-- a reader while no writer holds, a permit while fewer than cap are held), it becomes a holder with a new
-- token and a short pending lease (its heartbeat window, at most its lease); its own next check or renew
-- claims the full lease. Every grant is published once, as 'owner:token:pending lease ms' (several joined
-- by commas; with 'defer', by the client after the replicas acknowledged the call that made the grant, or never,
-- and the waiter's own check then finds it), so the waiter usually learns it at once and holds from then on, without another call: the
-- grant came after its last call that answered 'queued' (whose last token is lower than the grant's), so
-- the pending lease counted from that call's send time ends before it ends here. A missed message costs
-- at most one heartbeat. Readers at the head are granted together; a reader behind a waiting writer
-- waits (writer-preferring). Every call first drops holders whose lease ran out and waiters whose heartbeat
-- ran out, then grants onward: Redis has no timers, so whoever touches the lock moves it on.
local state, queue, deadlines = KEYS[1], KEYS[2], KEYS[3]
local op, channel, notify, memory, asked = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local heartbeat = tonumber(ARGV[6])
local granted_message = {} -- the grants of this call, answered at the end with 'defer'
local granted_to = {} -- the same grants by the client they go to (client -> list), published at the end
local granted_clients = {} -- those clients, in the order of their first grant

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])

local function num(field)
  return tonumber(redis.call('HGET', state, field) or '0')
end

-- the semaphore's permit count in force: the stored one while it is in use (a caller that asked with another number
-- never grants against its own), else the one asked; 0 for locks
local stored_cap = asked > 0 and num('cap') or 0
local cap = stored_cap ~= 0 and stored_cap or asked

-- Every redis.call costs about 2 us of Redis CPU on top of the command itself, far more than the work of most
-- of them here; so the script remembers what it learned. queue_empty: true when this script knows the queue is
-- empty (its key does not exist), false when it knows it is not, nil when it does not know.
local queue_empty = nil
-- held: the number of holders, once this script has read or written it (nil until then)
local held_now = nil

local function holders()
  if held_now == nil then
    held_now = num('held')
  end
  return held_now
end

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
  held_now = redis.call('HINCRBY', state, 'held', -1)
end

local function drop_waiter(member)
  queue_empty = nil
  redis.call('ZREM', queue, member)
  redis.call('ZREM', deadlines, member)
  redis.call('HDEL', state, 'l:' .. member)
end

local function can_grant(mode)
  local held = holders()
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
  held_now = held
  if mode == 'w' then
    redis.call('HSET', state, 'token', shown, 't:' .. owner, shown, 'held', held, 'writer', owner)
  else
    redis.call('HSET', state, 'token', shown, 't:' .. owner, shown, 'held', held)
  end
  redis.call('ZADD', deadlines, expiry, 'h' .. owner)
  return token
end

-- grants from the head of the queue while it may be granted; the grants are published (or answered) at the end
local function advance()
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
    local owner = string.sub(head, 2)
    local entry = owner .. ':' .. string.format('%.0f', token) .. ':' .. pending
    granted_message[#granted_message + 1] = entry
    local client = string.match(owner, '^(.*)%-[^%-]*$') or owner
    if not granted_to[client] then
      granted_to[client] = {}
      granted_clients[#granted_clients + 1] = client
    end
    local list = granted_to[client]
    list[#list + 1] = entry
    if mode == 'w' then
      break -- an exclusive holder now: nobody else may be granted, no need to look at the next head
    end
  end
end

-- drops what ran out (holders' leases, waiters' heartbeats, force-unlock notices), then grants onward. When nothing ran
-- out, there is nothing to grant: every call that frees a place (release, leave, force, a drop here) grants onward before
-- it ends, so between calls the head of the queue is never one that may be granted.
local function touch()
  local due = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now)
  if #due == 0 then
    return
  end
  for _, member in ipairs(due) do
    local what = string.sub(member, 1, 1)
    if what == 'h' then
      drop_holder(string.sub(member, 2))
    elseif what == 'f' then
      redis.call('ZREM', deadlines, member)
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

-- returns an error if the semaphore is in use with another number of permits; else the asked number is in force
local function check_cap()
  if asked == 0 then
    return nil
  end
  if stored_cap ~= 0 and stored_cap ~= asked and (holders() > 0 or not queue_is_empty()) then
    return 'DISTLOCK_PERMITS the semaphore is in use with ' .. stored_cap .. ' permits, asked with ' .. asked
  end
  if stored_cap ~= asked then
    redis.call('HSET', state, 'cap', asked)
    stored_cap, cap = asked, asked
  end
  return nil
end

-- tells a holder that a force-unlock ended its hold, once: answers true and forgets the notice if there was one
local function was_forced(owner)
  return redis.call('ZREM', deadlines, 'f' .. owner) == 1
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
  elseif was_forced(owner) then
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
  elseif was_forced(owner) then
    result = 3
  else
    result = 0
  end
elseif op == 'force' then
  local mode = ARGV[7]
  local answered = redis.call('GET', KEYS[4])
  if answered then
    result = tonumber(answered) -- a replay of a force-unlock that ran: it ends nothing granted since
  else
    touch()
    local writer = redis.call('HGET', state, 'writer')
    local owners, expiries = {}, {}
    local entries = redis.call('ZRANGE', deadlines, 0, -1, 'WITHSCORES')
    for i = 1, #entries, 2 do
      if string.sub(entries[i], 1, 1) == 'h' then
        local owner = string.sub(entries[i], 2)
        if mode == 'a' or (mode == 'w') == (owner == writer) then
          owners[#owners + 1] = owner
          expiries[#expiries + 1] = entries[i + 1]
        end
      end
    end
    for i, owner in ipairs(owners) do
      drop_holder(owner)
      redis.call('ZADD', deadlines, expiries[i], 'f' .. owner) -- its renewals learn of it until its lease would have ended
    end
    redis.call('SET', KEYS[4], #owners, 'PX', 60000)
    advance()
    result = #owners
  end
elseif op == 'downgrade' then
  local writer, reader, lease = ARGV[7], ARGV[8], tonumber(ARGV[9])
  touch()
  if holds(reader) then
    redis.call('ZADD', deadlines, now + lease, 'h' .. reader) -- a replay: the hold the first call made
    result = {1, num('t:' .. reader)}
  elseif redis.call('HGET', state, 'writer') == writer and holds(writer) then
    result = {1, make_holder(reader, 'r', now + lease)}
  else
    result = {0, 0}
  end
elseif op == 'count' then
  touch()
  result = math.max(0, cap - holders())
elseif op == 'held' then
  touch()
  local writer = redis.call('HEXISTS', state, 'writer')
  if ARGV[7] == 'w' then
    result = writer
  else
    result = (holders() - writer > 0) and 1 or 0
  end
else
  return redis.error_reply('ERR distlock queue.lua: unknown operation ' .. tostring(op))
end
keep()
if notify == 'defer' then
  return {result, table.concat(granted_message, ',')}
end
for _, client in ipairs(granted_clients) do
  redis.call(notify == 'sharded' and 'SPUBLISH' or 'PUBLISH', channel .. ':' .. client, table.concat(granted_to[client], ','))
end
return result
