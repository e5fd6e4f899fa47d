/**
 * The feedback lanes' scripts (src/status/feedbackLanes.ts runs them): each change to an issue's
 * lane is one round trip, so an entry is never half queued or half removed. The owing set lists
 * the lanes with entries: what a start-up looks through for lanes whose job was lost.
 */

/** forget(laneKey, owing, lane): an emptied lane leaves the owing set. */
const FORGET_EMPTY = `
local function forgetEmpty(laneKey, owing, lane)
  if redis.call('LLEN', laneKey) == 0 then redis.call('SREM', owing, lane) end
end
`;

/**
 * KEYS: id, entry, lane, owing. ARGV: ttlMs, lane, dueAt, entry id, entry key prefix, then the
 * entry's field/value pairs. Queues the entry at the end of its lane unless its id was queued
 * within the TTL (a retried step queueing the same feedback; a TTL of 0: an id made afresh, never
 * refused). Returns the due time (ms) of the lane's head, which the lane's job waits for, or false
 * when refused.
 */
export const ADD_ENTRY = `
if ARGV[1] ~= '0' and not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return false end
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], 'lane', ARGV[2], 'dueAt', ARGV[3], unpack(fields))
redis.call('RPUSH', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[2])
local head = redis.call('LINDEX', KEYS[3], 0)
return redis.call('HGET', ARGV[5] .. head, 'dueAt') or ARGV[3]
`;

/**
 * KEYS: lane, owing. ARGV: lane, entry key prefix. The lane's head with its fields: {id, field,
 * value, …}, or {} when the lane is empty. A head whose record is gone (Redis lost it) is dropped.
 */
export const HEAD_ENTRY = `${FORGET_EMPTY}
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head then
    forgetEmpty(KEYS[1], KEYS[2], ARGV[1])
    return {}
  end
  local fields = redis.call('HGETALL', ARGV[2] .. head)
  if #fields > 0 then
    local reply = {head}
    for i = 1, #fields do reply[#reply + 1] = fields[i] end
    return reply
  end
  redis.call('LPOP', KEYS[1])
end
`;

/** KEYS: entry. ARGV: ops done. Saves how far the entry got (so a retry does not post a comment twice), unless it was removed meanwhile. */
export const SAVE_PROGRESS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
`;

/**
 * KEYS: entry, owing. ARGV: entry id, lane key prefix. The entry leaves its lane (written, failed
 * for good, or withdrawn): 1 when it was there.
 */
export const REMOVE_ENTRY = `${FORGET_EMPTY}
local lane = redis.call('HGET', KEYS[1], 'lane')
if not lane then return 0 end
redis.call('DEL', KEYS[1])
local laneKey = ARGV[2] .. lane
redis.call('LREM', laneKey, 1, ARGV[1])
forgetEmpty(laneKey, KEYS[2], lane)
return 1
`;

/** KEYS: owing. ARGV: lane key prefix. The entries still to write, summed over the lanes with entries. */
export const COUNT_ENTRIES = `
local entries = 0
for _, lane in ipairs(redis.call('SMEMBERS', KEYS[1])) do entries = entries + redis.call('LLEN', ARGV[1] .. lane) end
return entries
`;
