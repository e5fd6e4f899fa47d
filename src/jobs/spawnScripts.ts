/**
 * The spawn queue's scripts (SpawnQueue runs them): each step of a spawn job's life is one round
 * trip. Times that decide whose a job is and when it runs (its lock's expiry, a retry's due time)
 * are Redis's own (TIME), so replicas whose clocks differ agree on when a lock has run out.
 */

/** now(): Redis's clock, in ms. */
const NOW = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** failJob(job, failed, id, oldest kept, field/value pairs…): moves the job's record to the failed stream. */
const FAIL = `
local function failJob(job, failed, id, oldest, extra)
  local fields = {'id', id}
  local record = redis.call('HGETALL', job)
  for i = 1, #record do fields[#fields + 1] = record[i] end
  for i = 1, #extra do fields[#fields + 1] = extra[i] end
  redis.call('XADD', failed, 'MINID', '~', oldest, '*', unpack(fields))
  redis.call('DEL', job)
end
`;

/**
 * KEYS: id, job, waiting, wake. ARGV: ttlMs, job id, data, attempts, now (the queuer's clock, as the gates' times are). Queues the job unless its id
 * was queued within the TTL (a redelivered answer, a retried step): 1 when queued, 0 when refused.
 * The wake set (src/jobs/workerParts.ts) tells a waiting worker.
 */
export const ADD_JOB = `
if not redis.call('SET', KEYS[1], 'queued', 'NX', 'PX', ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'data', ARGV[3], 'attempts', ARGV[4], 'made', 0, 'started', 0, 'stalls', 0, 'createdAt', ARGV[5])
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], 'LT', 0, 'wake')
return 1
`;

/**
 * KEYS: waiting, delayed, active, failed, wake. ARGV: lock ms, lock token, job key prefix, most
 * stalls, oldest failed id kept, id key prefix, whether to look for stalled jobs ('1': the worker
 * does every few seconds, not at every take). Moves the jobs now due (retries, rounds put back at a
 * shutdown) to the waiting list; when asked, puts the jobs whose lock ran out (their worker died or
 * lost Redis) back at its head, or in the failed stream once they stalled more than `most stalls`
 * times. Then takes the first waiting job under `lock token`. Replies {kind ('job' or 'idle'), job
 * id or '', more ('1' when jobs still wait), ms until the next delayed job is due or '' (when none
 * wait), stalled count, stalled ids…, then the job's field/value pairs as they were before the take};
 * a stalled id failed for good is given as 'failed:<id>'. A waiting id whose record is gone (Redis
 * lost it) is dropped.
 */
export const TAKE_JOB = `${NOW}${FAIL}
local at = now()
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', at, 'LIMIT', 0, 100)) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('RPUSH', KEYS[1], id)
end
local stalled = {}
if ARGV[7] == '1' then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', at, 'LIMIT', 0, 100)) do
    redis.call('ZREM', KEYS[3], id)
    local job = ARGV[3] .. id
    if redis.call('EXISTS', job) == 1 then
      redis.call('HDEL', job, 'lock')
      if redis.call('HINCRBY', job, 'stalls', 1) > tonumber(ARGV[4]) then
        failJob(job, KEYS[4], id, ARGV[5], {'error', 'the job stalled (its worker died or lost Redis) more times than allowed', 'failedAt', at})
        local idKey = ARGV[6] .. id
        if redis.call('EXISTS', idKey) == 1 then redis.call('SET', idKey, 'failed', 'KEEPTTL') end
        stalled[#stalled + 1] = 'failed:' .. id
      else
        redis.call('LPUSH', KEYS[1], id)
        stalled[#stalled + 1] = id
      end
    end
  end
end
local function reply(kind, id, fields)
  local more = redis.call('LLEN', KEYS[1]) > 0
  local dueIn = ''
  if not more then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    if first[2] then dueIn = tostring(math.max(0, tonumber(first[2]) - at)) end
  end
  local out = {kind, id, more and '1' or '0', dueIn, #stalled}
  for i = 1, #stalled do out[#out + 1] = stalled[i] end
  for i = 1, #fields do out[#out + 1] = fields[i] end
  return out, more
end
while true do
  local id = redis.call('LPOP', KEYS[1])
  if not id then return (reply('idle', '', {})) end
  local job = ARGV[3] .. id
  local fields = redis.call('HGETALL', job)
  if #fields > 0 then
    local started = 0
    for i = 1, #fields, 2 do
      if fields[i] == 'started' then started = tonumber(fields[i + 1]) or 0 end
    end
    redis.call('HSET', job, 'lock', ARGV[2], 'started', started + 1)
    redis.call('ZADD', KEYS[3], at + tonumber(ARGV[1]), id)
    local out, more = reply('job', id, fields)
    -- More waiting: another worker (a replica's) may take the next one.
    if more then redis.call('ZADD', KEYS[5], 'LT', 0, 'wake') end
    return out
  end
end
`;

/**
 * KEYS: active. ARGV: lock ms, job key prefix, then job id / lock token pairs. Extends each lock
 * still held under its token and not run out; returns the ids whose lock is lost (another worker
 * may run them now: their agents must stop).
 */
export const EXTEND_LOCKS = `${NOW}
local at = now()
local lost = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local expires = redis.call('ZSCORE', KEYS[1], id)
  if expires and tonumber(expires) >= at and redis.call('HGET', ARGV[2] .. id, 'lock') == ARGV[i + 1] then
    redis.call('ZADD', KEYS[1], at + tonumber(ARGV[1]), id)
  else
    lost[#lost + 1] = id
  end
end
return lost
`;

/**
 * KEYS: job, active, id. ARGV: job id, lock token, outcome. The job ran to its end: its record goes,
 * its id key (still refusing the job again) keeps the outcome in a line. 0 when the lock was lost.
 */
export const COMPLETE_JOB = `
if redis.call('HGET', KEYS[1], 'lock') ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[3], ARGV[3], 'XX', 'KEEPTTL')
return 1
`;

/**
 * KEYS: job, active, delayed, wake. ARGV: job id, lock token, delay ms, whether it used an attempt
 * ('1') or was only put back (a shutdown: '0'). The job waits `delay ms` and runs again. 0 when
 * the lock was lost.
 */
export const RETRY_JOB = `${NOW}
if redis.call('HGET', KEYS[1], 'lock') ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], 'lock')
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[1], 'made', 1) end
redis.call('ZADD', KEYS[3], now() + tonumber(ARGV[3]), ARGV[1])
redis.call('ZADD', KEYS[4], 'LT', 0, 'wake')
return 1
`;

/**
 * KEYS: job, active, failed, id. ARGV: job id, lock token, oldest failed id kept (a week ago), then
 * the failure's field/value pairs. The job failed for good: its record, with the error, moves to
 * the failed stream. 0 when the lock was lost.
 */
export const FAIL_JOB = `${FAIL}
if redis.call('HGET', KEYS[1], 'lock') ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'made', 1)
redis.call('HDEL', KEYS[1], 'lock')
local extra = {}
for i = 4, #ARGV do extra[#extra + 1] = ARGV[i] end
failJob(KEYS[1], KEYS[3], ARGV[1], ARGV[3], extra)
if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('SET', KEYS[4], 'failed', 'KEEPTTL') end
return 1
`;

/** KEYS: waiting, active, delayed, failed. Jobs waiting, running, due later, failed (the failed stream's length). */
export const COUNT_JOBS = `
return {redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), redis.call('XLEN', KEYS[4])}
`;
