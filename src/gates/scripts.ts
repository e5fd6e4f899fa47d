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
 * KEYS: gate, openGates, issue. ARGV: gateId, answersJson, by, at, commentId, questionCount.
 * Merges the given answers (by question index) into an open gate; when every question has one, the
 * gate becomes answered. Returns {'recorded', reopened} | {'partial', mergedJson} | {'same', state, '',
 * reopened} (this comment already answered it: a redelivery or retry) | {'taken', state, answeredBy} |
 * {'missing'}; `reopened` counts the times a withdrawn answer opened the gate again (REVISE_ANSWERS).
 */
export const RECORD_ANSWER = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'missing'} end
if state ~= 'open' then
  if redis.call('HGET', KEYS[1], 'answerCommentId') == ARGV[5] then return {'same', state, '', redis.call('HGET', KEYS[1], 'reopened') or '0'} end
  return {'taken', state, redis.call('HGET', KEYS[1], 'answeredBy') or ''}
end
local byQuestion = {}
for _, a in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'answers') or '[]')) do byQuestion[a.question] = a end
for _, a in ipairs(cjson.decode(ARGV[2])) do byQuestion[a.question] = a end
local merged = {}
for q = 0, tonumber(ARGV[6]) - 1 do
  if byQuestion[q] then table.insert(merged, byQuestion[q]) end
end
local encoded = #merged == 0 and '[]' or cjson.encode(merged)
redis.call('HSET', KEYS[1], 'answers', encoded)
if #merged < tonumber(ARGV[6]) then return {'partial', encoded} end
redis.call('HSET', KEYS[1], 'state', 'answered', 'answeredBy', ARGV[3], 'answeredAt', ARGV[4], 'answerCommentId', ARGV[5])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], 'openGate') == ARGV[1] then redis.call('HDEL', KEYS[3], 'openGate') end
return {'recorded', redis.call('HGET', KEYS[1], 'reopened') or '0'}
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
 * KEYS: gate, openGates, issue, issueGates. ARGV: commentId, answersJson (what the comment answers
 * now: '[]' when it was deleted), at, questionCount, gateId.
 * A reply was edited or deleted: its answers on the gate are replaced by `answersJson`, whatever
 * the gate's state, so no later round is told the old text. A question it no longer answers is
 * recorded in `withdrawn` ({by, at, questions}, no text). An answered gate that lost an answer
 * before its resume began is open again (compare-and-set against the spawn's claim, which needs
 * 'answered'); `reopened` counts that, so the next answer's resume gets a fresh job id.
 * Returns {'none', state} (the comment answers nothing here), {'reopened', state} (was answered),
 * {'replaced', state} or {'missing'}.
 */
export const REVISE_ANSWERS = `
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
redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'askedAt') or '0', ARGV[5])
redis.call('HSET', KEYS[3], 'openGate', ARGV[5])
return {'reopened', 'open'}
`;

/**
 * KEYS: notes. ARGV: url (the note's comment), text ('' when the comment was deleted), deliveryId
 * (the event that brought the text, '' for none). A /note was edited or deleted: every later task
 * gets the new text, or is told only that a note was withdrawn (its text and audit hash go).
 * Returns how many notes changed.
 */
export const REVISE_NOTE = `
local changed = 0
for i, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local note = cjson.decode(raw)
  if note.url == ARGV[1] then
    note.sha256 = nil
    note.text = ARGV[2]
    note.deliveryId = ARGV[3] ~= '' and ARGV[3] or nil
    note.withdrawn = ARGV[2] == '' or nil
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(note))
    changed = changed + 1
  end
end
return changed
`;

/**
 * KEYS: notes. ARGV: url, login. The note of comment `url` stands though `login`, not its author,
 * deleted the comment: it is marked so (`deletedBy`), and a rebuild does not withdraw it.
 * Returns how many notes were marked.
 */
export const KEEP_DELETED_NOTE = `
local marked = 0
for i, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local note = cjson.decode(raw)
  if note.url == ARGV[1] and not note.withdrawn then
    note.deletedBy = ARGV[2]
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(note))
    marked = marked + 1
  end
end
return marked
`;

/**
 * Lua: a spawn job claims an answered gate once; the same job may claim again (BullMQ re-runs a
 * stalled or interrupted job: that agent died with its worker), any other job may not. Returns
 * 'claimed', or the gate's state ('missing' when there is none).
 */
const CLAIM_FUNCTION = `
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

/** KEYS: gate, openGates, issue. ARGV: gateId, reason, state (cancelled or superseded). Closes an open gate without a resume. */
export const CANCEL_GATE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3] or 'cancelled', 'closedReason', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
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
 * Lua: the round of a spawn job, allocated once per job (a retried job keeps its round) and never
 * below `lowest` (a resume comes after the round that asked, even when Redis lost the counter); -1
 * when a new round would pass the limit (`roundLimit`, else `maxRounds`). The round is kept
 * in the hash under `spawnField` (Keys.issueSpawnField); one allocated before that, in the
 * issue's spawns hash, still counts.
 */
const ALLOCATE_FUNCTION = `
local function allocate(spawnsKey, issueKey, jobId, maxRounds, lowest, spawnField)
  local existing = redis.call('HGET', issueKey, spawnField) or redis.call('HGET', spawnsKey, jobId)
  if existing then return tonumber(existing) end
  local limit = tonumber(redis.call('HGET', issueKey, 'roundLimit') or maxRounds)
  local round = math.max(tonumber(redis.call('HGET', issueKey, 'nextRound') or '0'), tonumber(lowest or '0'))
  if round >= limit then return -1 end
  redis.call('HSET', issueKey, 'nextRound', round + 1, spawnField, round)
  return round
end
`;

/** KEYS: issueSpawns, issue. ARGV: jobId, roundLimit, lowest, spawnField. See ALLOCATE_FUNCTION. */
export const ALLOCATE_ROUND = `${ALLOCATE_FUNCTION}
return allocate(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`;

/**
 * KEYS: issue, issueSpawns, epoch, then the gate to claim (a resume) or nothing (a dispatch).
 * ARGV: jobId, allocate ('1' or '0'), maxRounds, lowest, raiseLimitBy, spawnField (Keys.issueSpawnField).
 * What a spawn job does in Redis before it starts an agent, in one round trip: claims the gate;
 * raises the round limit by `raiseLimitBy` past the rounds used (a human answered "retry" to
 * "rounds exhausted"); unless the issue is closed or `allocate` is '0', allocates the job's round.
 * Returns {claim, closed (0/1), round (-2: none asked for or closed, -1: limit reached), the issue's
 * round after it, epoch ('' when unset)}.
 */
export const BEGIN_ROUND = `${CLAIM_FUNCTION}${ALLOCATE_FUNCTION}
local epoch = redis.call('GET', KEYS[3]) or ''
if KEYS[4] then
  local claimed = claim(KEYS[4], ARGV[1])
  if claimed ~= 'claimed' then return {claimed, 0, -2, 0, epoch} end
end
local raise = tonumber(ARGV[5])
if raise > 0 then redis.call('HSET', KEYS[1], 'roundLimit', tonumber(redis.call('HGET', KEYS[1], 'nextRound') or '0') + raise) end
local closed = redis.call('HGET', KEYS[1], 'state') == 'closed'
local round = -2
if not closed and ARGV[2] == '1' then round = allocate(KEYS[2], KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[6]) end
local current = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'nextRound') or '0') - 1)
return {'claimed', closed and 1 or 0, round, current, epoch}
`;

/**
 * KEYS: issue, issueGates, issueNotes. ARGV: the gate keys' prefix (Keys.gatePrefix).
 * Everything a spawn task is rendered from, in one round trip: {issue hash, notes, then each of
 * the gates' hashes in ask order}.
 */
export const ROUND_CONTEXT = `
local out = {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[3], 0, -1)}
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id) end
return out
`;

/**
 * KEYS: gate, issueGates, issue. ARGV: gateId, state, then field/value pairs. Re-creates a settled
 * gate from the status comment after Redis lost it; a gate Redis still has is left alone.
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

/** Redis's own clock in ms, so every replica's budget and pause agree whatever their clocks say. */
const NOW_MS = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * KEYS: writes (sorted set of write times), pauses, nextWake. ARGV: installationId, minuteMs,
 * perMinute, hourMs, perHour, member. Takes one slot of the installation's write budget: {0, 'ok'}
 * when granted (the write is logged now), else {waitMs, reason} with how long until the caller
 * should try again: 'paused' (GitHub asked the app to stop), 'hour' or 'minute' (the sliding
 * window is full). Writes put off for the budget are told to come back one after the other, at the
 * window's pace, rather than all at the moment the first slot frees.
 */
export const TAKE_WRITE = `
${NOW_MS}
local pausedUntil = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0')
if pausedUntil > now then return {pausedUntil - now, 'paused'} end
local minuteMs, perMinute, hourMs, perHour = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - hourMs)
local inHour = redis.call('ZCARD', KEYS[1])
local wait, reason, pace = 0, 'ok', 0
if inHour >= perHour then
  local frees = redis.call('ZRANGE', KEYS[1], inHour - perHour, inHour - perHour, 'WITHSCORES')
  wait, reason, pace = math.max(1, tonumber(frees[2]) + hourMs - now), 'hour', hourMs / perHour
else
  local inMinute = redis.call('ZCOUNT', KEYS[1], now - minuteMs + 1, '+inf')
  if inMinute >= perMinute then
    local frees = redis.call('ZRANGEBYSCORE', KEYS[1], now - minuteMs + 1, '+inf', 'WITHSCORES', 'LIMIT', inMinute - perMinute, 1)
    wait, reason, pace = math.max(1, tonumber(frees[2]) + minuteMs - now), 'minute', minuteMs / perMinute
  end
end
if reason ~= 'ok' then
  local at = now + wait
  local last = tonumber(redis.call('GET', KEYS[3]) or '0')
  if last + pace > at then at = math.ceil(last + pace) end
  redis.call('SET', KEYS[3], at, 'PX', math.ceil(at - now + hourMs))
  return {at - now, reason}
end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('PEXPIRE', KEYS[1], hourMs)
return {0, 'ok'}
`;

/**
 * KEYS: writes. ARGV: member. A granted write has been sent: it counts from now on (not from when
 * it was granted), so GitHub never sees more in any window than the budget, however long it took.
 */
export const SETTLE_WRITE = `
${NOW_MS}
return redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
`;

/** KEYS: pauses. ARGV: installationId, ms. No write for the installation for `ms` (a longer pause stays). Returns ms left. */
export const PAUSE_WRITES = `
${NOW_MS}
redis.call('ZADD', KEYS[1], 'GT', now + tonumber(ARGV[2]), ARGV[1])
return tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) - now
`;

/** KEYS: pauses. Installations still paused, as {installationId, msLeft, …}; ended pauses are dropped. */
export const PAUSED_INSTALLATIONS = `
${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local out = {}
local rows = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #rows, 2 do
  table.insert(out, rows[i])
  table.insert(out, tostring(tonumber(rows[i + 1]) - now))
end
return out
`;

/** KEYS: issue. ARGV: atLeast. Raises the round counter to `atLeast` (a rebuild that saw later rounds). */
export const RAISE_NEXT_ROUND = `
if tonumber(redis.call('HGET', KEYS[1], 'nextRound') or '0') < tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'nextRound', ARGV[1]) end
return 1
`;

/** KEYS: issue. ARGV: now (ms). The next status render's place: above every earlier one, and not below the time, so it keeps rising after a wipe. */
export const NEXT_STATUS_SEQ = `
local seq = tonumber(redis.call('HGET', KEYS[1], 'statusSeq') or '0') + 1
if tonumber(ARGV[1]) > seq then seq = tonumber(ARGV[1]) end
redis.call('HSET', KEYS[1], 'statusSeq', string.format('%d', seq))
return seq
`;

/** KEYS: issue, issueFeedbackOrder. ARGV: jobId. Queues the job in the write order (a job already there keeps its place). */
export const ENQUEUE_FEEDBACK = `
local seq = redis.call('HINCRBY', KEYS[1], 'feedbackSeq', 1)
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
return seq
`;

/**
 * KEYS: issue. ARGV: field ("body" or "title"), its editor field, its kept field, the text as GitHub
 * shows it now, "foreign" or "own", editor, previous text.
 * An edit of the body or title: by whom it belongs to (the body's author; for the title,
 * any person), their words again (the kept version is dropped); by anyone else, the last version
 * of theirs is kept: the previous one, unless that was already someone else's (then whatever was
 * kept stays, or none).
 */
export const KEPT_TEXT_EDITED = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
if ARGV[5] == 'foreign' then
  if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then redis.call('HSET', KEYS[1], ARGV[3], ARGV[7]) end
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[6])
else
  redis.call('HDEL', KEYS[1], ARGV[2], ARGV[3])
end
return 1
`;
