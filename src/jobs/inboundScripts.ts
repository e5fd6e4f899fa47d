/**
 * The inbound stream's scripts (InboundStream runs them): each step of a delivery's life is one
 * round trip, and the delivery key (its id → its entry) changes with the entry it names.
 */

/**
 * KEYS: delivery, stream. ARGV: ttlMs, deliveryId, event JSON. Appends the event unless its delivery
 * was taken within the TTL (a redelivery): 1 when appended, 0 when refused.
 */
export const ADD_DELIVERY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local id = redis.call('XADD', KEYS[2], '*', 'delivery', ARGV[2], 'event', ARGV[3])
redis.call('SET', KEYS[1], id, 'PX', ARGV[1])
return 1
`;

/** KEYS[1]: stream. ARGV: group, entry id, one more, then field/value pairs. Ends the entry's life in the stream; `fields`: the pairs. */
const TAKE_OUT = `
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
`;

/**
 * KEYS: stream, outcomes. ARGV: group, entry id, cap, then the outcome's field/value pairs. The
 * entry is handled: acknowledged, deleted (the stream holds only work still to do) and its outcome
 * appended to the capped outcome stream.
 */
export const FINISH_DELIVERY = `${TAKE_OUT}
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', unpack(fields))
return 1
`;

/**
 * KEYS: stream, failed, delivery. ARGV: group, entry id, oldest id kept (a week ago), then the
 * failure's field/value pairs. Moves an entry that kept failing to the failed stream (kept a week)
 * and points the delivery key at it, so a withdrawal still finds its text there.
 */
export const FAIL_DELIVERY = `${TAKE_OUT}
local id = redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[3], '*', unpack(fields))
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('SET', KEYS[3], 'failed:' .. id, 'KEEPTTL') end
return 1
`;

/**
 * KEYS: delivery, stream, failed. Deletes the delivery's entry wherever it is (waiting, or failed):
 * 1 when one was deleted. An entry being handled stays with its worker, which acknowledges it.
 */
export const FORGET_DELIVERY = `
local at = redis.call('GET', KEYS[1])
if not at or at == '' then return 0 end
if string.sub(at, 1, 7) == 'failed:' then return redis.call('XDEL', KEYS[3], string.sub(at, 8)) end
return redis.call('XDEL', KEYS[2], at)
`;

/**
 * KEYS: stream. ARGV: group, consumer, entry ids. Resets the idle time of the entries this consumer
 * still owns (handling them takes a while), so no other worker claims them as stalled; returns how
 * many it kept. XCLAIM with JUSTID leaves the delivery count alone.
 */
export const KEEP_DELIVERIES = `
local kept = 0
for i = 3, #ARGV do
  local ok, pending = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if ok and pending[1] and pending[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    kept = kept + 1
  end
end
return kept
`;

/**
 * KEYS: stream, failed. ARGV: group. The entries still to do (waiting and being handled), those
 * being handled (pending in the group) and the failed ones. No group yet (a fresh or wiped Redis):
 * none is pending.
 */
export const COUNT_DELIVERIES = `
local total = redis.call('XLEN', KEYS[1])
local ok, summary = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1])
local pending = 0
if ok then pending = summary[1] end
return { total, pending, redis.call('XLEN', KEYS[2]) }
`;
