/**
 * Lua scripts for the gate transitions that must be atomic: each runs as one Redis command,
 * so two webhook deliveries, two repliers or two app replicas cannot both win.
 */

/** KEYS: gate, openGates, issue, issueGates. ARGV: gateId, askedAt, then field/value pairs. */
export const OPEN_GATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists', ''} end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'state', 'open')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('RPUSH', KEYS[4], ARGV[1])
local previous = redis.call('HGET', KEYS[3], 'openGate')
local superseded = ''
if previous and previous ~= ARGV[1] then
  local previousKey = string.gsub(KEYS[1], '[^:]+$', previous)
  if redis.call('HGET', previousKey, 'state') == 'open' then
    redis.call('HSET', previousKey, 'state', 'superseded', 'closedReason', 'a newer question was asked')
    redis.call('ZREM', KEYS[2], previous)
    superseded = previous
  end
end
redis.call('HSET', KEYS[3], 'openGate', ARGV[1])
return {'opened', superseded}
`;

/**
 * KEYS: gate, openGates, issue. ARGV: gateId, answersJson, by, at, commentId.
 * Returns {'recorded'} | {'same', state} (this comment already answered it: a redelivery) |
 * {'taken', state, answeredBy} | {'missing'}.
 */
export const RECORD_ANSWER = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'missing'} end
if state ~= 'open' then
  if redis.call('HGET', KEYS[1], 'answerCommentId') == ARGV[5] then return {'same', state} end
  return {'taken', state, redis.call('HGET', KEYS[1], 'answeredBy') or ''}
end
redis.call('HSET', KEYS[1], 'state', 'answered', 'answers', ARGV[2], 'answeredBy', ARGV[3], 'answeredAt', ARGV[4], 'answerCommentId', ARGV[5])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], 'openGate') == ARGV[1] then redis.call('HDEL', KEYS[3], 'openGate') end
return {'recorded'}
`;

/**
 * KEYS: gate. ARGV: jobId, now. A spawn job claims an answered gate once; the same job may claim
 * again (BullMQ re-runs a stalled or interrupted job: that agent died with its worker), any other
 * job may not.
 */
export const CLAIM_RESUME = `
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'answered' then
  redis.call('HSET', KEYS[1], 'state', 'resuming', 'claim', ARGV[1])
  return 'claimed'
end
if (state == 'resuming' or state == 'resumed') and redis.call('HGET', KEYS[1], 'claim') == ARGV[1] then return 'claimed' end
return state or 'missing'
`;

/** KEYS: gate, openGates, issue. ARGV: gateId, reason. Cancels an open gate. */
export const CANCEL_GATE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'cancelled', 'closedReason', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], 'openGate') == ARGV[1] then redis.call('HDEL', KEYS[3], 'openGate') end
return 1
`;

/** KEYS: issueSpawns, issue. ARGV: jobId. The round of a spawn job, allocated once per job. */
export const ALLOCATE_ROUND = `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return tonumber(existing) end
local round = redis.call('HINCRBY', KEYS[2], 'nextRound', 1) - 1
redis.call('HSET', KEYS[1], ARGV[1], round)
return round
`;
