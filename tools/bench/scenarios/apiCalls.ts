import { renderAskComment } from "../../../src/protocol/ask.js";
import type { ApiCall } from "../../simulator/index.js";
import { waitUntil } from "../pool.js";
import { REPOS, Rig } from "../rig.js";

const REPO = REPOS.roundTrips;

/**
 * (4) GitHub API calls per ask/answer round trip made by the app, counted by the simulator, and
 * the content-creating writes among them; plus (3, real path) what a gate opened through the
 * app leaves in Redis while it is parked.
 *
 * The ask is posted into the simulator directly (no REST call, no agent), so every counted call is
 * the app's own: "beyond the agent's own ask post". One round trip right after start-up (cold
 * caches), then `warm` round trips on distinct issues, answered with the option as written (the
 * happy path); then one whose reply the app interprets (an option with a note), which adds the
 * comment saying how it was read (issue 9).
 */
export interface CallCount {
  total: number;
  writes: number;
  byRoute: Record<string, number>;
}

export interface ApiCallsResult {
  cold: { ask: CallCount; answer: CallCount; total: number; writes: number };
  warm: { roundTrips: number; ask: CallCount; answer: CallCount; perRoundTrip: number; writesPerRoundTrip: number; byRoute: Record<string, number> };
  /** A warm round trip whose reply was interpreted: "SQLite, keep it embedded". */
  interpreted: { total: number; writes: number };
  /** Bytes each gate opened through the app adds while parked, by kind of key. */
  realParked: {
    gates: number;
    bytesPerGate: Record<string, number>;
    /** The gate's and its issue's own keys. */
    gateKeysPerGate: number;
    /** Deduplication keys of the jobs the gate's webhooks and feedback made: kept 24 h. */
    dedupPerGate: number;
    /** Completed job records and queue indexes: kept an hour, at most 1,000 per queue, so bounded rather than per gate. */
    jobHistoryPerGate: number;
    totalPerGate: number;
  };
  /** Bytes the answer phase added per round trip (job history kept for deduplication), by kind of key. */
  answerBytesPerRoundTrip: Record<string, number>;
}

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);
/** Content-creating writes: comments, reactions and labels (GitHub's secondary limit counts these). */
export const isContentWrite = (call: Pick<ApiCall, "method" | "route">) => WRITE_METHODS.has(call.method) && /\/(comments|reactions|labels)\b/.test(call.route);

export function countCalls(calls: readonly ApiCall[], actors: ReadonlySet<string>, divideBy = 1): CallCount {
  const mine = calls.filter((c) => actors.has(c.actor));
  const byRoute: Record<string, number> = {};
  for (const call of mine) byRoute[call.route] = (byRoute[call.route] ?? 0) + 1 / divideBy;
  return { total: mine.length / divideBy, writes: mine.filter(isContentWrite).length / divideBy, byRoute };
}

/** The app's actors as the simulator names them: its installation (the bot) and its JWT. */
export const appActors = (rig: Rig) => new Set([rig.sim.botLogin, `app:${rig.sim.appSlug}`]);

/** A queue's own keys, as opposed to its jobs' (`<prefix>:<queue>:<jobId>`). */
const BULLMQ_STRUCTURE = new Set([
  "completed",
  "failed",
  "events",
  "wait",
  "active",
  "delayed",
  "prioritized",
  "paused",
  "meta",
  "id",
  "marker",
  "stalled",
  "stalled-check",
  "pc",
  "limiter",
  "repeat",
  "waiting-children",
]);

/** What a key is, for the memory breakdown. */
export function keyKind(prefix: string, key: string): string {
  const rest = key.slice(prefix.length + 1);
  if (rest.startsWith("gate:")) return "gate hash";
  if (rest === "gates:open") return "open-gates index";
  if (rest === "gates:openRepos") return "open-gates repositories index";
  const issue = /^issue:[^#]+#\d+(?::(\w+))?$/.exec(rest);
  if (issue) return issue[1] ? `issue ${issue[1]}` : "issue hash";
  const [head = rest, second = ""] = rest.split(":");
  if (head === "owed") return second === "key" ? "feedback lanes: entry ids (24 h)" : `feedback lanes: ${second}`;
  if (["inbound", "spawn", "feedback", "timeouts", "maintenance"].includes(head)) {
    if (second === "de") return `bullmq ${head}: deduplication keys (24 h)`;
    if (BULLMQ_STRUCTURE.has(second)) return `bullmq ${head}: indexes and event stream`;
    return `bullmq ${head}: job records`;
  }
  return head;
}

function diffBytes(rig: Rig, before: Map<string, number>, after: Map<string, number>, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, bytes] of after) {
    const delta = bytes - (before.get(key) ?? 0);
    if (delta === 0) continue;
    const kind = keyKind(rig.prefix, key);
    out[kind] = (out[kind] ?? 0) + delta / per;
  }
  for (const [key, bytes] of before) {
    if (after.has(key)) continue;
    const kind = keyKind(rig.prefix, key);
    out[kind] = (out[kind] ?? 0) - bytes / per;
  }
  return out;
}

async function askThroughApp(rig: Rig, count: number): Promise<number[]> {
  const issues: number[] = [];
  for (let i = 0; i < count; i++) {
    const issue = rig.sim.createIssue(REPO, { title: `Round trip ${i}: add a cache`, body: "The lookups are slow; cache them.", author: "maintainer" });
    rig.sim.comment(REPO, issue.number, rig.sim.botLogin, renderAskComment(Rig.newAsk()));
    issues.push(issue.number);
  }
  await waitUntil(
    "the gates to open",
    async () => {
      for (const issue of issues) if ((await rig.store.gates.lastGate({ repo: REPO, issue }))?.state !== "open") return false;
      return true;
    },
    60_000,
  );
  await rig.quiesce();
  return issues;
}

/** The option as written: read as it is, so no comment says how it was read. */
const EXACT_REPLY = "SQLite";
const INTERPRETED_REPLY = "SQLite, keep it embedded";

async function answerThroughApp(rig: Rig, issues: number[], body = EXACT_REPLY): Promise<void> {
  for (const issue of issues) rig.reply({ repo: REPO, issue }, body);
  await waitUntil(
    "the resumed agents",
    () => {
      rig.agents.poll();
      return issues.every((issue) => rig.agents.first(REPO, issue));
    },
    60_000,
  );
  await rig.quiesce();
}

export async function measureApiCalls(rig: Rig, warm: number): Promise<ApiCallsResult> {
  const actors = appActors(rig);
  // Cold: the first round trip after start-up.
  let mark = rig.sim.calls.length;
  const [coldIssue] = await askThroughApp(rig, 1);
  const coldAsk = countCalls(rig.sim.calls.slice(mark), actors);
  mark = rig.sim.calls.length;
  await answerThroughApp(rig, [coldIssue!]);
  const coldAnswer = countCalls(rig.sim.calls.slice(mark), actors);

  // Warm: `warm` round trips on distinct issues; the asks all park before any answer.
  const before = await rig.namespaceBytes();
  mark = rig.sim.calls.length;
  const issues = await askThroughApp(rig, warm);
  const ask = countCalls(rig.sim.calls.slice(mark), actors, warm);
  const parked = await rig.namespaceBytes();
  mark = rig.sim.calls.length;
  await answerThroughApp(rig, issues);
  const answer = countCalls(rig.sim.calls.slice(mark), actors, warm);
  const answered = await rig.namespaceBytes();

  mark = rig.sim.calls.length;
  await answerThroughApp(rig, await askThroughApp(rig, 1), INTERPRETED_REPLY);
  const interpreted = countCalls(rig.sim.calls.slice(mark), actors);

  const bytesPerGate = diffBytes(rig, before, parked, warm);
  const gateKeysPerGate = Object.entries(bytesPerGate)
    .filter(([k]) => k.startsWith("gate") || k.startsWith("open") || k.startsWith("issue"))
    .reduce((s, [, v]) => s + v, 0);
  const sum = (pick: (kind: string) => boolean) =>
    Object.entries(bytesPerGate)
      .filter(([k]) => pick(k))
      .reduce((s, [, v]) => s + v, 0);
  // The queues' keys: BullMQ's and the feedback lanes' (their ids deduplicate as BullMQ's keys do).
  const queued = (k: string) => ["bullmq", "feedback lanes"].some((q) => k.startsWith(q));
  const deduplicating = (k: string) => k.includes("deduplication") || k.includes("ids (24 h)");
  const dedupPerGate = sum((k) => queued(k) && deduplicating(k));
  const jobHistoryPerGate = sum((k) => queued(k) && !deduplicating(k));
  const byRoute: Record<string, number> = {};
  for (const part of [ask, answer]) for (const [route, n] of Object.entries(part.byRoute)) byRoute[route] = (byRoute[route] ?? 0) + n;
  return {
    cold: { ask: coldAsk, answer: coldAnswer, total: coldAsk.total + coldAnswer.total, writes: coldAsk.writes + coldAnswer.writes },
    warm: { roundTrips: warm, ask, answer, perRoundTrip: ask.total + answer.total, writesPerRoundTrip: ask.writes + answer.writes, byRoute },
    interpreted: { total: interpreted.total, writes: interpreted.writes },
    realParked: {
      gates: warm,
      bytesPerGate,
      gateKeysPerGate,
      dedupPerGate,
      jobHistoryPerGate,
      totalPerGate: Object.values(bytesPerGate).reduce((s, v) => s + v, 0),
    },
    answerBytesPerRoundTrip: diffBytes(rig, parked, answered, warm),
  };
}
