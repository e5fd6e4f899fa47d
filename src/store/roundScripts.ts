/**
 * The issue rounds' Lua scripts. BEGIN_ROUND also claims the resumed gate and reads the epoch, and
 * ROUND_CONTEXT reads the issue's gates and notes: one round trip each for a spawn job's start, so
 * they stay single scripts, here with the round that drives them.
 */
import { CLAIM_FUNCTION } from "./gateScripts.js";

/**
 * Lua: the round of a spawn job, allocated once per job (a retried job keeps its round) and never
 * below `lowest` (a resume comes after the round that asked, even when Redis lost the counter); -1
 * when a new round would pass the limit (`roundLimit`, else `maxRounds`). The round is kept
 * in the hash under `spawnField` (IssueRounds.spawnField); one allocated before that, in the
 * issue's spawns hash, still counts. `known`: the fields the caller read already (its
 * spawnField, roundLimit and nextRound), else read here. Returns the round and the next round after it.
 */
const ALLOCATE_FUNCTION = `
local function allocate(spawnsKey, issueKey, jobId, maxRounds, lowest, spawnField, known)
  if not known then
    local at = redis.call('HMGET', issueKey, spawnField, 'roundLimit', 'nextRound')
    known = {existing = at[1], limit = at[2], next = tonumber(at[3] or '0')}
  end
  local existing = known.existing or redis.call('HGET', spawnsKey, jobId)
  if existing then return tonumber(existing), known.next end
  local limit = tonumber(known.limit or maxRounds)
  local round = math.max(known.next, tonumber(lowest or '0'))
  if round >= limit then return -1, known.next end
  redis.call('HSET', issueKey, 'nextRound', round + 1, spawnField, round)
  return round, round + 1
end
`;

/** KEYS: issueSpawns, issue. ARGV: jobId, roundLimit, lowest, spawnField. See ALLOCATE_FUNCTION. */
export const ALLOCATE_ROUND = `${ALLOCATE_FUNCTION}
local round = allocate(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return round
`;

/**
 * KEYS: issue, issueSpawns, epoch, roundsDone, then the gate to claim (a resume) or nothing (a dispatch).
 * ARGV: jobId, allocate ('1' or '0'), maxRounds, lowest, raiseLimitBy, spawnField (IssueRounds.spawnField).
 * What a spawn job does in Redis before it starts an agent, in one round trip: nothing when the
 * job's round already ran to its end (its round's field is gone then, MARK_ROUND_DONE: allocating
 * again would hand it a new round); else claims the gate;
 * raises the round limit by `raiseLimitBy` past the rounds used (a human answered "retry" to
 * "rounds exhausted"); unless the issue is closed or `allocate` is '0', allocates the job's round.
 * Returns {claim ('done' when the round already ran), closed (0/1), round (-2: none asked for or
 * closed, -1: limit reached), the round after it, epoch ('' when unset)}.
 */
export const BEGIN_ROUND = `${CLAIM_FUNCTION}${ALLOCATE_FUNCTION}
local epoch = redis.call('GET', KEYS[3]) or ''
if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 1 then return {'done', 0, -2, 0, epoch} end
if KEYS[5] then
  local claimed = claim(KEYS[5], ARGV[1])
  if claimed ~= 'claimed' then return {claimed, 0, -2, 0, epoch} end
end
local issue = redis.call('HMGET', KEYS[1], 'state', ARGV[6], 'roundLimit', 'nextRound')
local known = {existing = issue[2], limit = issue[3], next = tonumber(issue[4] or '0')}
local raise = tonumber(ARGV[5])
if raise > 0 then
  known.limit = known.next + raise
  redis.call('HSET', KEYS[1], 'roundLimit', known.limit)
end
local closed = issue[1] == 'closed'
local round = -2
local nextRound = known.next
if not closed and ARGV[2] == '1' then round, nextRound = allocate(KEYS[2], KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[6], known) end
return {'claimed', closed and 1 or 0, round, math.max(0, nextRound - 1), epoch}
`;

/**
 * KEYS: roundsDone, issue, issueSpawns. ARGV: jobId, spawnField (IssueRounds.spawnField).
 * The spawn job's round ran to its end: a re-run of the job stops at the done set
 * (BEGIN_ROUND), so its round is no longer read and its field leaves the hash (and the
 * spawns hash of before, which goes with its last field). The hash then holds the rounds of jobs
 * still to run, not one field per job of the life, and stays a listpack.
 */
export const MARK_ROUND_DONE = `
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`;

/**
 * KEYS: issue, issueGates, issueNotes. ARGV: the gate keys' prefix (GateKeys.gatePrefix).
 * Everything a spawn task is rendered from, in one round trip: {issue hash, notes, then each of
 * the gates' hashes in ask order}.
 */
export const ROUND_CONTEXT = `
local out = {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[3], 0, -1)}
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id) end
return out
`;

/** KEYS: issue. ARGV: atLeast. Raises the round counter to `atLeast` (a rebuild that saw later rounds). */
export const RAISE_NEXT_ROUND = `
if tonumber(redis.call('HGET', KEYS[1], 'nextRound') or '0') < tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'nextRound', ARGV[1]) end
return 1
`;
