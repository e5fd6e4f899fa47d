/**
 * The gate records' Lua scripts: the transitions that must be atomic run as one Redis command each,
 * so two webhook deliveries, two repliers or two app replicas cannot both win.
 * Scripts that also write the issue's hash (`openGate`) or its gate list stay one script, here with
 * the gate they move: splitting them would let a reader see the gate and its issue disagree.
 * Every script that adds a gate to the open gates (ZADD) or takes one out (ZREM) counts it in the
 * index of repositories with open gates (COUNT_OPEN_FUNCTION) in the same script.
 * One module over 250 lines, on purpose: it is Lua, one script per transition, and the scripts share
 * the index's marker field and COUNT_OPEN_FUNCTION; kept together, every ZADD or ZREM of the open
 * gates and the count beside it are checked in one file, which a split by transition would scatter.
 */

/** The field of the open-repositories index that marks it complete (see GateKeys.openGateRepos); no repository's field is named so. */
export const OPEN_REPOS_BUILT = "built";

/**
 * Lua: counts the gate at `gateKey` into (`delta` 1) or out of (-1) the index of repositories with
 * open gates, by its installation and repository ('<installationId>:<repo>' → open gates there; a
 * repository's last one gone, its field goes). Called only where ZADD added, or ZREM removed, the
 * gate from the open gates, so the index counts exactly their members. Until the index is built
 * (INDEX_OPEN_REPOS: a Redis written before it existed, or wiped) it is left alone: the build counts them all.
 */
const COUNT_OPEN_FUNCTION = `
local function countOpen(indexKey, gateKey, delta)
  if redis.call('HEXISTS', indexKey, '${OPEN_REPOS_BUILT}') == 0 then return end
  local at = redis.call('HMGET', gateKey, 'installationId', 'repo')
  if not at[1] or not at[2] then return end
  local field = at[1] .. ':' .. at[2]
  if redis.call('HINCRBY', indexKey, field, delta) <= 0 then redis.call('HDEL', indexKey, field) end
end
`;

/** KEYS: the gates. ARGV: the gate key prefix. The newest gate's hash (empty when none): one round trip, not two. */
export const LAST_GATE = `
local id = redis.call('LINDEX', KEYS[1], -1)
if not id then return {} end
return redis.call('HGETALL', ARGV[1] .. id)
`;

/**
 * KEYS: openRepos, openGates. ARGV: the gate keys' prefix (GateKeys.gatePrefix). Builds the index of
 * repositories with open gates from the open gates, once (it is then marked built and kept by every
 * transition), and returns it as HGETALL does. One script, so no transition lands between the count
 * and the mark; it reads each open gate's installation and repository once, for the index's lifetime.
 */
export const INDEX_OPEN_REPOS = `
if redis.call('HEXISTS', KEYS[1], '${OPEN_REPOS_BUILT}') == 0 then
  redis.call('DEL', KEYS[1])
  local counts = {}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local at = redis.call('HMGET', ARGV[1] .. id, 'installationId', 'repo')
    if at[1] and at[2] then
      local field = at[1] .. ':' .. at[2]
      counts[field] = (counts[field] or 0) + 1
    end
  end
  for field, n in pairs(counts) do redis.call('HSET', KEYS[1], field, n) end
  redis.call('HSET', KEYS[1], '${OPEN_REPOS_BUILT}', '1')
end
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: gate, openGates, issue, issueGates, openRepos. ARGV: gateId, askedAt, then field/value pairs. Spans the issue: its `openGate` moves with the gate. */
export const OPEN_GATE = `${COUNT_OPEN_FUNCTION}
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists', ''} end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'state', 'open')
if redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) == 1 then countOpen(KEYS[5], KEYS[1], 1) end
redis.call('RPUSH', KEYS[4], ARGV[1])
local previous = redis.call('HGET', KEYS[3], 'openGate')
local superseded = ''
if previous and previous ~= ARGV[1] then
  local previousKey = string.gsub(KEYS[1], '[^:]+$', previous)
  if redis.call('HGET', previousKey, 'state') == 'open' then
    redis.call('HSET', previousKey, 'state', 'superseded', 'closedReason', 'a newer question was asked')
    if redis.call('ZREM', KEYS[2], previous) == 1 then countOpen(KEYS[5], previousKey, -1) end
    superseded = previous
  end
end
redis.call('HSET', KEYS[3], 'openGate', ARGV[1])
return {'opened', superseded}
`;

/**
 * KEYS: gate, openGates, issue, openRepos. ARGV: gateId, answersJson, by, at, commentId, questionCount.
 * Merges the given answers (by question index) into an open gate; when every question has one, the
 * gate becomes answered. Returns {'recorded', reopened, the gate's hash as HGETALL gives it} | {'partial', mergedJson} | {'same', state, '',
 * reopened} (this comment already answered it: a redelivery or retry) | {'taken', state, answeredBy} |
 * {'missing'}; `reopened` counts the times a withdrawn answer opened the gate again (REVISE_ANSWERS).
 */
export const RECORD_ANSWER = `${COUNT_OPEN_FUNCTION}
local gate = redis.call('HMGET', KEYS[1], 'state', 'answers', 'reopened', 'answerCommentId', 'answeredBy')
local state = gate[1]
if not state then return {'missing'} end
if state ~= 'open' then
  if gate[4] == ARGV[5] then return {'same', state, '', gate[3] or '0'} end
  return {'taken', state, gate[5] or ''}
end
local byQuestion = {}
for _, a in ipairs(cjson.decode(gate[2] or '[]')) do byQuestion[a.question] = a end
for _, a in ipairs(cjson.decode(ARGV[2])) do byQuestion[a.question] = a end
local merged = {}
for q = 0, tonumber(ARGV[6]) - 1 do
  if byQuestion[q] then table.insert(merged, byQuestion[q]) end
end
local encoded = #merged == 0 and '[]' or cjson.encode(merged)
if #merged < tonumber(ARGV[6]) then
  redis.call('HSET', KEYS[1], 'answers', encoded)
  return {'partial', encoded}
end
redis.call('HSET', KEYS[1], 'answers', encoded, 'state', 'answered', 'answeredBy', ARGV[3], 'answeredAt', ARGV[4], 'answerCommentId', ARGV[5])
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then countOpen(KEYS[4], KEYS[1], -1) end
if redis.call('HGET', KEYS[3], 'openGate') == ARGV[1] then redis.call('HDEL', KEYS[3], 'openGate') end
local recorded = {'recorded', gate[3] or '0'}
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do recorded[#recorded + 1] = v end
return recorded
`;

/**
 * KEYS: gate, votes. ARGV: login (lower case), voteJson, vote, commentId.
 * Records one person's vote on an open approval gate, compare-and-set per person: the first vote
 * is 'counted'; the same comment again is 'same' (a redelivery or retry); the same vote from
 * another comment is 'repeated' and not stored again; a different vote is 'changed' and replaces
 * it. Returns {outcome, vote JSON…} with every vote now recorded, {'closed', state} once the
 * gate is no longer open, or {'missing'}.
 */
export const RECORD_VOTE = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'missing'} end
if state ~= 'open' then return {'closed', state} end
local outcome = 'counted'
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous then
  local old = cjson.decode(previous)
  if tostring(old.commentId) == ARGV[4] then outcome = 'same'
  elseif old.vote == ARGV[3] then outcome = 'repeated'
  else outcome = 'changed' end
end
if outcome == 'counted' or outcome == 'changed' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
local out = {outcome}
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do table.insert(out, v) end
return out
`;

/**
 * KEYS: gate, openGates, issue, issueGates, openRepos. ARGV: commentId, answersJson (what the comment answers
 * now: '[]' when it was deleted), at, questionCount, gateId.
 * A reply was edited or deleted: its answers on the gate are replaced by `answersJson`, whatever
 * the gate's state, so no later round is told the old text. A question it no longer answers is
 * recorded in `withdrawn` ({by, at, questions}, no text). An answered gate that lost an answer
 * before its resume began is open again (compare-and-set against the spawn's claim, which needs
 * 'answered'); `reopened` counts that, so the next answer's resume gets a fresh job id.
 * Returns {'none', state} (the comment answers nothing here), {'reopened', state} (was answered),
 * {'replaced', state} or {'missing'}.
 */
export const REVISE_ANSWERS = `${COUNT_OPEN_FUNCTION}
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'missing'} end
local byQuestion, had = {}, {}
for _, a in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'answers') or '[]')) do
  if tostring(a.commentId) == ARGV[1] then had[a.question] = a else byQuestion[a.question] = a end
end
if next(had) == nil then return {'none', state} end
local now = {}
for _, a in ipairs(cjson.decode(ARGV[2])) do
  byQuestion[a.question] = a
  now[a.question] = true
end
local lost, by = {}, ''
for q, a in pairs(had) do
  if not now[q] then
    table.insert(lost, q)
    by = a.by
  end
end
local merged = {}
for q = 0, tonumber(ARGV[4]) - 1 do
  if byQuestion[q] then table.insert(merged, byQuestion[q]) end
end
redis.call('HSET', KEYS[1], 'answers', #merged == 0 and '[]' or cjson.encode(merged))
if #lost > 0 then
  table.sort(lost)
  local withdrawn = cjson.decode(redis.call('HGET', KEYS[1], 'withdrawn') or '[]')
  table.insert(withdrawn, {by = by, at = tonumber(ARGV[3]), questions = lost})
  redis.call('HSET', KEYS[1], 'withdrawn', cjson.encode(withdrawn))
end
if state ~= 'answered' or #merged == tonumber(ARGV[4]) then return {'replaced', state} end
redis.call('HDEL', KEYS[1], 'answeredBy', 'answeredAt', 'answerCommentId')
redis.call('HINCRBY', KEYS[1], 'reopened', 1)
local openGate = redis.call('HGET', KEYS[3], 'openGate')
if (openGate and openGate ~= ARGV[5]) or redis.call('LINDEX', KEYS[4], -1) ~= ARGV[5] then
  redis.call('HSET', KEYS[1], 'state', 'superseded', 'closedReason', 'a newer question was asked')
  return {'reopened', 'superseded'}
end
redis.call('HSET', KEYS[1], 'state', 'open')
if redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'askedAt') or '0', ARGV[5]) == 1 then countOpen(KEYS[5], KEYS[1], 1) end
redis.call('HSET', KEYS[3], 'openGate', ARGV[5])
return {'reopened', 'open'}
`;

/**
 * Lua: a spawn job claims an answered gate once; the same job may claim again (the spawn worker
 * re-runs a stalled or interrupted job: that agent died with its worker), any other job may not. Returns
 * 'claimed', or the gate's state ('missing' when there is none). Also the first step of BEGIN_ROUND (issueRounds.ts).
 */
export const CLAIM_FUNCTION = `
local function claim(gateKey, jobId)
  local state = redis.call('HGET', gateKey, 'state')
  if state == 'answered' then
    redis.call('HSET', gateKey, 'state', 'resuming', 'claim', jobId)
    return 'claimed'
  end
  if (state == 'resuming' or state == 'resumed') and redis.call('HGET', gateKey, 'claim') == jobId then return 'claimed' end
  return state or 'missing'
end
`;

/** KEYS: gate. ARGV: jobId. See CLAIM_FUNCTION. */
export const CLAIM_RESUME = `${CLAIM_FUNCTION}
return claim(KEYS[1], ARGV[1])
`;

/**
 * KEYS: gate. ARGV: at. The round that resumed the gate ran to its end. Returns 0 when Redis no
 * longer has the gate (it was wiped while the agent ran), so the caller can restore it as resumed.
 */
export const FINISH_RESUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'state', 'resumed', 'resumedAt', ARGV[1])
return 1
`;

/** KEYS: gate, openGates, issue, openRepos. ARGV: gateId, reason, state (cancelled or superseded). Closes an open gate without a resume. */
export const CANCEL_GATE = `${COUNT_OPEN_FUNCTION}
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3] or 'cancelled', 'closedReason', ARGV[2])
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then countOpen(KEYS[4], KEYS[1], -1) end
if redis.call('HGET', KEYS[3], 'openGate') == ARGV[1] then redis.call('HDEL', KEYS[3], 'openGate') end
return 1
`;

/** KEYS: gate. ARGV: at. The reminder ladder ran out on an open gate: it is overdue from `at` (the first time counts). */
export const MARK_OVERDUE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 0 end
redis.call('HSETNX', KEYS[1], 'overdueAt', ARGV[1])
return 1
`;

/**
 * KEYS: gate. ARGV: answersJson, by, at, commentId. The first answer to a superseded gate is kept
 * (folded into later tasks as such) but resumes nothing. Returns 'recorded', 'same' (this comment
 * already did: a redelivery), or the gate's state ('taken' when another comment answered it first).
 */
export const RECORD_SUPERSEDED_ANSWER = `
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'superseded' then return state or 'missing' end
local previous = redis.call('HGET', KEYS[1], 'answerCommentId')
if previous == ARGV[4] then return 'same' end
if previous then return 'taken' end
redis.call('HSET', KEYS[1], 'answers', ARGV[1], 'answeredBy', ARGV[2], 'answeredAt', ARGV[3], 'answerCommentId', ARGV[4])
return 'recorded'
`;

/**
 * KEYS: gate, issueGates, issue. ARGV: gateId, state, then field/value pairs. Re-creates a settled
 * gate from the issue's status comment after Redis lost it; a gate Redis still has is left alone.
 * Never an open gate (a lost open gate is opened again through OPEN_GATE), so the open gates and
 * their repositories' index are not touched.
 */
export const RESTORE_GATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
local ids = redis.call('LRANGE', KEYS[2], 0, -1)
local present = false
for _, id in ipairs(ids) do if id == ARGV[1] then present = true end end
if not present then redis.call('RPUSH', KEYS[2], ARGV[1]) end
return 1
`;
