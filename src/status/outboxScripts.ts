/**
 * The feedback outbox's scripts (FeedbackOutbox runs them): each step of an entry's life is one
 * round trip. An issue's writes wait in a lane (a list of entry ids, written in order); the lanes
 * index holds each lane with the time its head is due, so the writer takes the lane due first.
 * Every script that changes a lane's head scores the lane again (RESCORE).
 */

/** rescore(lanes, laneKey, lane, entryPrefix): the lane's score is its head's due time; an empty lane leaves the index. */
const RESCORE = `
local function rescore(lanes, laneKey, lane, entryPrefix)
  local head = redis.call('LINDEX', laneKey, 0)
  if not head then
    redis.call('ZREM', lanes, lane)
    return
  end
  redis.call('ZADD', lanes, redis.call('HGET', entryPrefix .. head, 'dueAt') or 0, lane)
end
`;

/**
 * KEYS: id, entry, lane, lanes, wake. ARGV: ttlMs, lane, dueAt, entry id, then the
 * entry's field/value pairs. Queues the entry at the end of its lane unless its id was queued
 * within the TTL (a retried step queueing the same feedback; a TTL of 0: an id made afresh, never
 * refused): 1 when queued, 0 when refused. A lane
 * not yet in the index (new, or lost from it) is scored by this entry; one there keeps its head's
 * score. The wake set (the earliest due time queued since the writer last looked:
 * src/jobs/workerParts.ts) tells a waiting writer, which takes nothing before it is due.
 */
export const ADD_ENTRY = `${RESCORE}
if ARGV[1] ~= '0' and not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], 'lane', ARGV[2], 'dueAt', ARGV[3], unpack(fields))
redis.call('RPUSH', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], 'NX', ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[5], 'LT', ARGV[3], 'wake')
return 1
`;

/**
 * KEYS: writer, lanes. ARGV: writer id, now, entry key prefix, lane key prefix. The head of the
 * lane due first, with its fields: {'entry', id, field, value, …}; {'idle', next due or ''} when
 * no lane is due; {'lease'} when this writer no longer holds the lease (another took it over). A
 * head whose record is gone (Redis lost it) is dropped on the way.
 */
export const TAKE_ENTRY = `${RESCORE}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lease'} end
while true do
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0, 1)
  if #due == 0 then
    local nextDue = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {'idle', nextDue[2] or ''}
  end
  local lane = due[1]
  local laneKey = ARGV[4] .. lane
  local head = redis.call('LINDEX', laneKey, 0)
  if not head then
    redis.call('ZREM', KEYS[2], lane)
  else
    local fields = redis.call('HGETALL', ARGV[3] .. head)
    if #fields == 0 then
      redis.call('LPOP', laneKey)
      rescore(KEYS[2], laneKey, lane, ARGV[3])
    else
      local reply = {'entry', head}
      for i = 1, #fields do reply[#reply + 1] = fields[i] end
      return reply
    end
  end
end
`;

/** KEYS: entry. ARGV: ops done. Saves how far the entry got (so a retry does not post a comment twice), unless it was removed meanwhile. */
export const SAVE_PROGRESS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
`;

/**
 * KEYS: entry, lane, lanes. ARGV: entry id, lane, entry key prefix, now. The entry is
 * written: it leaves its lane, whose next head is due next. Returns the ms until the lane due first
 * is due (0: one is due now), or '' when no lane has entries: the writer takes again only then.
 */
export const FINISH_ENTRY = `${RESCORE}
if redis.call('DEL', KEYS[1]) == 1 then
  redis.call('LREM', KEYS[2], 1, ARGV[1])
  rescore(KEYS[3], KEYS[2], ARGV[2], ARGV[3])
end
local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if not first[2] then return '' end
return tostring(math.max(0, tonumber(first[2]) - tonumber(ARGV[4])))
`;

/**
 * KEYS: entry, lanes. ARGV: lane, due at, attempts so far. The entry (its lane's head) waits until
 * `due at`, and its lane with it: its writes keep their place before the later ones.
 */
export const PUT_OFF_ENTRY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'dueAt', ARGV[2], 'attempts', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`;

/**
 * KEYS: entry, lane, lanes, failed, id. ARGV: entry id, lane, entry key prefix, oldest
 * failed id kept (a week ago), then the failure's field/value pairs. An entry that kept failing
 * leaves its lane for the failed stream, with its fields; its id key points there, so a withdrawal
 * still finds its text.
 */
export const FAIL_ENTRY = `${RESCORE}
local record = redis.call('HGETALL', KEYS[1])
if #record == 0 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('LREM', KEYS[2], 1, ARGV[1])
rescore(KEYS[3], KEYS[2], ARGV[2], ARGV[3])
local fields = {'id', ARGV[1]}
for i = 1, #record do fields[#fields + 1] = record[i] end
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
local failed = redis.call('XADD', KEYS[4], 'MINID', '~', ARGV[4], '*', unpack(fields))
redis.call('SET', KEYS[5], 'failed:' .. failed, 'XX', 'KEEPTTL')
return 1
`;

/**
 * KEYS: entry, lanes, failed, id. ARGV: entry id, entry key prefix, lane key prefix.
 * Deletes an entry that holds withdrawn text, queued or failed: 1 when one was deleted. One being
 * written this moment is deleted too; its writer finds it gone when it ends.
 */
export const REMOVE_ENTRY = `${RESCORE}
local lane = redis.call('HGET', KEYS[1], 'lane')
if lane then
  redis.call('DEL', KEYS[1])
  local laneKey = ARGV[3] .. lane
  redis.call('LREM', laneKey, 1, ARGV[1])
  rescore(KEYS[2], laneKey, lane, ARGV[2])
  return 1
end
local at = redis.call('GET', KEYS[4])
if at and string.sub(at, 1, 7) == 'failed:' then
  redis.call('SET', KEYS[4], '1', 'KEEPTTL')
  return redis.call('XDEL', KEYS[3], string.sub(at, 8))
end
return 0
`;

/**
 * KEYS: writer. ARGV: writer id, lease ms. Takes the lease when nobody holds it, or keeps it for
 * its holder: 1 when `writer id` holds it now. One writer at a time across replicas keeps status
 * comment edits in order and within GitHub's write pacing.
 */
export const HOLD_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** KEYS: writer. ARGV: writer id. Gives the lease up (a clean close), if this writer holds it. */
export const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS: lanes, failed. ARGV: now, lane key prefix. {entries still to write, lanes with entries,
 * lanes put off until later, failed entries}: every lane with entries is in the index, so summing
 * their lengths counts the outbox without a counter each entry would keep (a few lanes, unless
 * GitHub stopped the app's writes).
 */
export const COUNT_ENTRIES = `
local entries, lanes = 0, redis.call('ZRANGE', KEYS[1], 0, -1)
for _, lane in ipairs(lanes) do entries = entries + redis.call('LLEN', ARGV[2] .. lane) end
return {
  entries,
  #lanes,
  redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf'),
  redis.call('XLEN', KEYS[2])
}
`;
