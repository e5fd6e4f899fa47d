import { readdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { projectRoot } from "../../src/config/projectRoot.js";
import { summarizeProfile, type ProfileSummary } from "./profile.js";
import { aggregate, contention, machine, summaryTable, writeResults, type Machine, type Row, type RunFigures } from "./report.js";
import { REPOS, Rig } from "./rig.js";
import { measureApiCalls, type ApiCallsResult } from "./scenarios/apiCalls.js";
import { parkMany, type ParkedCostResult } from "./scenarios/parkedCost.js";
import { measurePolling, type PollingResult } from "./scenarios/polling.js";
import { measureReplyToSpawn, type ReplyToSpawnResult } from "./scenarios/replyToSpawn.js";
import { measureIdlePasses, measureRebuild } from "./scenarios/rebuild.js";
import { measureSandboxCost } from "./scenarios/sandboxCost.js";
import { measureThroughput, type ThroughputResult } from "./scenarios/throughput.js";
import { measureRoles, type RolesResult } from "./scenarios/roles.js";
import { distribution, spread, type Distribution, type Spread } from "./stats.js";
import { fmt, markdownTable } from "./table.js";
import { benchWorkspace } from "./workspace.js";

/**
 * `npm run bench`: the loop measured on loopback (simulator, private Redis, the real app in its
 * own process, a trivial agent). Prints Markdown tables and writes tools/bench/results/<date>.json.
 *
 *   npm run bench                 3 runs, the full sizes (about 13 minutes on 2 cores)
 *   npm run bench -- --quick      1 run, smaller samples (about a minute)
 *   npm run bench -- --profile    also CPU-profile the app (node --cpu-prof) and print where time went
 *   npm run bench -- --rebuild-only   only (7), reconciliation at scale (--quick: smaller)
 *   npm run bench -- --loop-only      measurements 1–5 only (no workspace, sandbox or rebuild): A/B runs of the loop
 *   npm run bench -- --roles          only (8), the app beside a runner (ROLE=app + ROLE=runner) against ROLE=all and a bare Probot app
 *   npm run bench -- --runs 5 --rate 20 --throttle
 */
interface Sizes {
  runs: number;
  warmRoundTrips: number;
  parked: number;
  replies: number;
  rate: number;
  pollGates: number;
  pollWindowSeconds: number;
  deliveries: number;
  concurrency: number;
  resumeWindowSeconds: number;
  agentConcurrency: number;
  /** (7) Gates rebuilt after a wipe, over how many repositories; repositories of the idle installation, how many with a question waiting. */
  rebuildGates: number;
  rebuildRepos: number;
  idleRepos: number;
  idleGatedRepos: number;
}

/**
 * Replies arrive at 4/s: far more than people answer, and below what 2 cores sustain (a round trip
 * costs ~70 ms of CPU, about half of it the Node agent's start-up), so the figure is latency rather
 * than queueing. Three runs of 350 answered gates pool to 1,050 for the percentiles.
 */
const FULL: Sizes = {
  runs: 3,
  warmRoundTrips: 20,
  parked: 100_000,
  replies: 350,
  rate: 4,
  pollGates: 30,
  pollWindowSeconds: 20,
  deliveries: 4000,
  concurrency: 32,
  resumeWindowSeconds: 15,
  agentConcurrency: 4,
  rebuildGates: 2000,
  rebuildRepos: 200,
  idleRepos: 1000,
  idleGatedRepos: 10,
};
const QUICK: Sizes = {
  runs: 1,
  warmRoundTrips: 5,
  parked: 10_000,
  replies: 100,
  rate: 4,
  pollGates: 10,
  pollWindowSeconds: 8,
  deliveries: 1500,
  concurrency: 32,
  resumeWindowSeconds: 8,
  agentConcurrency: 4,
  rebuildGates: 500,
  rebuildRepos: 50,
  idleRepos: 200,
  idleGatedRepos: 5,
};
const INTERVALS = [10, 1];

interface RunResult {
  run: number;
  seconds: number;
  /** Contention when the run started (see report.ts). */
  contention: number;
  loadAverage: number;
  apiCalls: ApiCallsResult;
  parked: ParkedCostResult;
  replyToSpawn: ReplyToSpawnResult;
  appMemoryAfterReplies: { rss: number; heapUsed: number };
  polling: PollingResult;
  throughput: ThroughputResult;
  profiles: ProfileSummary[];
}

const MiB = 2 ** 20;

async function oneRun(index: number, sizes: Sizes, options: { dir: string; profile: boolean; throttle: boolean }): Promise<RunResult> {
  const started = Date.now();
  const atStart = { contention: contention(), loadAverage: Math.round(loadavg()[0]! * 100) / 100 };
  const dir = join(options.dir, `run-${index}`);
  const say = (text: string) => console.error(`  [run ${index}] ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s  ${text}`);
  const rig = await Rig.start({ dir, agentConcurrency: sizes.agentConcurrency, throttle: options.throttle, profile: options.profile, log: say });
  try {
    say(`app pid ${rig.app.pid} at ${rig.app.url}; logs in ${dir}`);
    say(`(4) API calls: 1 cold + ${sizes.warmRoundTrips} warm round trips through the app`);
    const apiCalls = await measureApiCalls(rig, sizes.warmRoundTrips);
    say(`(3) parking ${sizes.parked} gates`);
    const parked = await parkMany(rig, sizes.parked);
    // Side by side first, while the simulator's webhook queue is empty: measurement 1 leaves it (and
    // the feedback queue) busy with the echoes of hundreds of round trips for a while.
    say(
      `    parked in ${parked.result.parkSeconds.toFixed(1)} s; (5) side by side: webhook vs polling every ${INTERVALS.join(" s and ")} s, ${sizes.pollGates} gates each, replies within ${sizes.pollWindowSeconds} s`,
    );
    const polling = await measurePolling(rig, { gatesPerGroup: sizes.pollGates, windowSeconds: sizes.pollWindowSeconds, intervals: INTERVALS });
    say(`(1) ${sizes.replies} replies at ${sizes.rate}/s`);
    const pool = await rig.parkGates(REPOS.replies, sizes.replies, { inRedis: true });
    const replyToSpawn = await measureReplyToSpawn(rig, pool, sizes.rate);
    const memory = await rig.app.memory();
    say(`(2) ${sizes.deliveries} deliveries, ${sizes.concurrency} in flight, with ${sizes.parked}+ gates parked`);
    // The burst starts from a quiet app: measurement 1's feedback and its echoes drained (or a minute passed).
    const drained = await rig.quiesce({ timeoutMs: 60_000 }).then(
      () => true,
      () => false,
    );
    if (!drained) say("    (the feedback queue was still busy after a minute; measuring anyway)");
    const answerable = await rig.parkGates(REPOS.burst, sizes.deliveries, { inRedis: true });
    const throughput = await measureThroughput(rig, answerable, { concurrency: sizes.concurrency, resumeWindowSeconds: sizes.resumeWindowSeconds });
    say("done; stopping");
    await rig.close();
    const profiles = options.profile ? listProfiles(join(dir, "profiles")).map((file) => summarizeProfile(file)) : [];
    return {
      run: index,
      seconds: (Date.now() - started) / 1000,
      ...atStart,
      apiCalls,
      parked: parked.result,
      replyToSpawn,
      appMemoryAfterReplies: { rss: memory.rss, heapUsed: memory.heapUsed },
      polling,
      throughput,
      profiles,
    };
  } catch (error) {
    await rig.close().catch(() => undefined);
    throw error;
  }
}

function listProfiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

function figuresOf(r: RunResult): RunFigures {
  const m1 = r.replyToSpawn;
  const p = r.parked;
  const poll = (interval: number) => r.polling.pollers.find((x) => x.intervalSeconds === interval)!;
  const f: RunFigures = {
    "run.contention": r.contention,
    "run.load": r.loadAverage,
    "m1.p50": m1.arrivalToProcessStart.p50,
    "m1.p90": m1.arrivalToProcessStart.p90,
    "m1.p99": m1.arrivalToProcessStart.p99,
    "m1.max": m1.arrivalToProcessStart.max,
    "m1.spawn.p50": m1.arrivalToSpawnEvent.p50,
    "m1.spawn.p99": m1.arrivalToSpawnEvent.p99,
    "m1.first.p50": m1.arrivalToFirstInstruction.p50,
    "m1.first.p99": m1.arrivalToFirstInstruction.p99,
    "m1.posted.p50": m1.postedToArrival.p50,
    "m1.posted.p99": m1.postedToArrival.p99,
    "m1.n": m1.answered - m1.missing,
    "m1.achieved": m1.achievedPerSecond,
    "m1.contention": m1.contention,
    "m1.redisCommands": Object.values(m1.redisCommandsPerRoundTrip).reduce((a, b) => a + b, 0),
    "m1.cpu.app": m1.cpuPerRoundTrip.appSelf,
    "m1.cpu.children": m1.cpuPerRoundTrip.appChildren,
    "m1.cpu.redis": m1.cpuPerRoundTrip.redis,
    "m1.cpu.bench": m1.cpuPerRoundTrip.bench,
    "m2.parked": r.throughput.parkedAtStart,
    "m2.ackPerSecond": r.throughput.deliveriesPerSecond,
    "m2.ackP50": r.throughput.ackLatency.p50,
    "m2.ackP99": r.throughput.ackLatency.p99,
    "m2.failed": r.throughput.failed,
    "m2.recordedPerSecond": r.throughput.answersRecordedPerSecond,
    "m2.resumesPerSecond": r.throughput.resumesPerSecond,
    "m2.cpu.app": r.throughput.cpuPerDelivery.appSelf,
    "m3.gateKeysBytes": p.keysPerGate.total,
    "m3.usedMemoryBytes": p.usedMemoryPerGate,
    "m3.realGateKeysBytes": r.apiCalls.realParked.gateKeysPerGate,
    "m3.realJobHistoryBytes": r.apiCalls.realParked.jobHistoryPerGate,
    "m3.realDedupBytes": r.apiCalls.realParked.dedupPerGate,
    "m3.realSteadyBytes": r.apiCalls.realParked.gateKeysPerGate + r.apiCalls.realParked.dedupPerGate,
    "m3.realTotalBytes": r.apiCalls.realParked.totalPerGate,
    "m3.processes": p.appProcesses,
    "m3.watchdogs": p.appWatchdogs ?? Number.NaN,
    "m3.rssGrowthMiB": (p.appMemoryAfter.rss - p.appMemoryBefore.rss) / MiB,
    "m3.heapGrowthMiB": (p.appMemoryAfter.heapUsed - p.appMemoryBefore.heapUsed) / MiB,
    "m3.rssMiB": p.appMemoryAfter.rss / MiB,
    "m3.heapMiB": p.appMemoryAfter.heapUsed / MiB,
    "m3.rssAfterRepliesMiB": r.appMemoryAfterReplies.rss / MiB,
    "m3.rssAfterBurstMiB": r.throughput.appMemoryAfter.rss / MiB,
    "m3.heapAfterBurstMiB": r.throughput.appMemoryAfter.heapUsed / MiB,
    "m4.calls": r.apiCalls.warm.perRoundTrip,
    "m4.writes": r.apiCalls.warm.writesPerRoundTrip,
    "m4.interpretedCalls": r.apiCalls.interpreted.total,
    "m4.interpretedWrites": r.apiCalls.interpreted.writes,
    "m4.askCalls": r.apiCalls.warm.ask.total,
    "m4.answerCalls": r.apiCalls.warm.answer.total,
    "m4.coldCalls": r.apiCalls.cold.total,
    "m4.coldWrites": r.apiCalls.cold.writes,
    "m5.ours.p50": r.polling.ours.latency.p50,
    "m5.ours.p99": r.polling.ours.latency.p99,
    "m5.ours.arrival.p50": r.polling.ours.arrivalLatency.p50,
    "m5.ours.calls": r.apiCalls.warm.perRoundTrip,
  };
  for (const interval of INTERVALS) {
    const x = poll(interval);
    f[`m5.poll${interval}.p50`] = x.latency.p50;
    f[`m5.poll${interval}.p99`] = x.latency.p99;
    f[`m5.poll${interval}.calls`] = x.callsPerRoundTrip;
    f[`m5.poll${interval}.latencyRatio`] = x.latency.p50 / r.polling.ours.latency.p50;
    f[`m5.poll${interval}.latencyRatioArrival`] = x.latency.p50 / r.polling.ours.arrivalLatency.p50;
    f[`m5.poll${interval}.callsRatio`] = x.callsPerRoundTrip / r.apiCalls.warm.perRoundTrip;
  }
  for (const [route, n] of Object.entries(r.apiCalls.warm.byRoute)) f[`m4.route.${route}`] = n;
  for (const [route, n] of Object.entries(r.apiCalls.cold.ask.byRoute)) f[`m4.coldRoute.${route}`] = (f[`m4.coldRoute.${route}`] ?? 0) + n;
  for (const [route, n] of Object.entries(r.apiCalls.cold.answer.byRoute)) f[`m4.coldRoute.${route}`] = (f[`m4.coldRoute.${route}`] ?? 0) + n;
  for (const [kind, bytes] of Object.entries(r.apiCalls.realParked.bytesPerGate)) f[`m3.real.${kind}`] = bytes;
  for (const [kind, bytes] of Object.entries(r.apiCalls.answerBytesPerRoundTrip)) f[`m3.answer.${kind}`] = bytes;
  for (const [kind, bytes] of Object.entries(p.keysPerGate)) f[`m3.key.${kind}`] = bytes;
  for (const [command, n] of Object.entries(m1.redisCommandsPerRoundTrip)) f[`m1.redisCmd.${command}`] = n;
  return f;
}

function rows(sizes: Sizes): Row[] {
  const below = (limit: number) => (v: number) => v < limit;
  const atMost = (limit: number) => (v: number) => v <= limit;
  const atLeast = (limit: number) => (v: number) => v >= limit;
  return [
    {
      section: "—",
      label: "Machine contention at the run's start (wall ÷ CPU time of a fixed task; 1.0 = a core to spare)",
      figure: "run.contention",
      unit: "×",
    },
    { section: "—", label: "Load average (1 min) at the run's start", figure: "run.load", unit: "" },
    {
      section: "1",
      label: `Reply → agent process started, p50 (webhook arrival → child's process start; ${sizes.replies} gates at ${sizes.rate}/s)`,
      figure: "m1.p50",
      unit: "ms",
      target: { text: "< 50 ms", met: below(50) },
    },
    { section: "1", label: "… p90", figure: "m1.p90", unit: "ms" },
    { section: "1", label: "… p99", figure: "m1.p99", unit: "ms", target: { text: "< 250 ms", met: below(250) } },
    { section: "1", label: "… max", figure: "m1.max", unit: "ms" },
    {
      section: "1",
      label: `Agents started per second (offered: ${sizes.rate}/s; lower means the loop was saturated and latency is queueing)`,
      figure: "m1.achieved",
      unit: "/s",
    },
    { section: "1", label: "Machine contention when the replies started", figure: "m1.contention", unit: "×" },
    { section: "1", label: "All runs pooled: p50 (n in the next rows)", figure: "pooled.p50", unit: "ms", target: { text: "< 50 ms", met: below(50) } },
    { section: "1", label: "… pooled p90", figure: "pooled.p90", unit: "ms" },
    { section: "1", label: "… pooled p99", figure: "pooled.p99", unit: "ms", target: { text: "< 250 ms", met: below(250) } },
    { section: "1", label: "… pooled max", figure: "pooled.max", unit: "ms" },
    { section: "1", label: "… answered gates pooled", figure: "pooled.n", unit: "", target: { text: "≥ 1,000", met: atLeast(1000) } },
    { section: "1", label: "Webhook arrival → app has the child's pid (agent.started), p50 / p99", figure: "m1.spawn.p50", unit: "ms" },
    { section: "1", label: "… p99", figure: "m1.spawn.p99", unit: "ms" },
    { section: "1", label: "Webhook arrival → agent's first instruction (includes Node's boot), p50", figure: "m1.first.p50", unit: "ms" },
    { section: "1", label: "… p99", figure: "m1.first.p99", unit: "ms" },
    { section: "1", label: "Reply posted → webhook arrival (the simulator's serial dispatcher), p50", figure: "m1.posted.p50", unit: "ms" },
    { section: "1", label: "CPU per round trip: the app process (webhooks, queues, spawn calls, feedback)", figure: "m1.cpu.app", unit: "ms" },
    { section: "1", label: "CPU per round trip: the app's children (the agent, Node)", figure: "m1.cpu.children", unit: "ms" },
    { section: "1", label: "CPU per round trip: redis-server", figure: "m1.cpu.redis", unit: "ms" },
    { section: "1", label: "Redis commands per round trip (the app's)", figure: "m1.redisCommands", unit: "" },
    {
      section: "2",
      label: `Webhook deliveries acknowledged per second (${sizes.deliveries} answers, ${sizes.concurrency} in flight)`,
      figure: "m2.ackPerSecond",
      unit: "/s",
      target: { text: "≥ 500/s", met: atLeast(500) },
    },
    { section: "2", label: "… with gates parked at the start", figure: "m2.parked", unit: "" },
    { section: "2", label: "Delivery acknowledgement latency p50", figure: "m2.ackP50", unit: "ms" },
    { section: "2", label: "… p99", figure: "m2.ackP99", unit: "ms" },
    { section: "2", label: "Deliveries not acknowledged with 2xx", figure: "m2.failed", unit: "", target: { text: "0", met: atMost(0) } },
    { section: "2", label: "App CPU per delivery while acknowledging (processing included)", figure: "m2.cpu.app", unit: "ms" },
    { section: "2", label: "Answers recorded per second (inbound worker)", figure: "m2.recordedPerSecond", unit: "/s" },
    {
      section: "2",
      label: `Answers resumed per second (agents started, AGENT_CONCURRENCY=${sizes.agentConcurrency}, first ${sizes.resumeWindowSeconds} s)`,
      figure: "m2.resumesPerSecond",
      unit: "/s",
    },
    {
      section: "3",
      label: `Redis per parked gate: MEMORY USAGE of its keys (as src/store/ names them) + share of the open index (${sizes.parked} parked)`,
      figure: "m3.gateKeysBytes",
      unit: "B",
      target: { text: "< 2 KB", met: below(2048) },
    },
    {
      section: "3",
      label: "Redis per parked gate: used_memory growth / gates",
      figure: "m3.usedMemoryBytes",
      unit: "B",
      target: { text: "< 2 KB", met: below(2048) },
    },
    {
      section: "3",
      label: "Redis per gate opened through the app: gate + issue keys",
      figure: "m3.realGateKeysBytes",
      unit: "B",
      target: { text: "< 2 KB", met: below(2048) },
    },
    { section: "3", label: "… plus deduplication keys of its jobs and delivery ids (kept 24 h)", figure: "m3.realDedupBytes", unit: "B" },
    {
      section: "3",
      label: "… gate + issue keys + deduplication keys: what a parked gate holds after the first hour",
      figure: "m3.realSteadyBytes",
      unit: "B",
      target: { text: "< 2 KB", met: below(2048) },
    },
    {
      section: "3",
      label: "… plus completed job records and delivery outcomes of its first hour (at most 1,000 per queue)",
      figure: "m3.realJobHistoryBytes",
      unit: "B",
    },
    { section: "3", label: "… total in its first hour", figure: "m3.realTotalBytes", unit: "B" },
    {
      section: "3",
      label: "Processes held by the app while every gate is parked (its orphan watchdog apart)",
      figure: "m3.processes",
      unit: "",
      target: { text: "0", met: atMost(0) },
    },
    { section: "3", label: "… the app's orphan watchdog (one per app process, whatever the gates)", figure: "m3.watchdogs", unit: "" },
    { section: "3", label: `App RSS growth, 0 → ${sizes.parked} parked gates`, figure: "m3.rssGrowthMiB", unit: "MiB" },
    { section: "3", label: "App heap growth (after full GC), same", figure: "m3.heapGrowthMiB", unit: "MiB" },
    { section: "3", label: "App RSS after the replies / after the delivery burst", figure: "m3.rssAfterRepliesMiB", unit: "MiB" },
    { section: "3", label: "… after the burst", figure: "m3.rssAfterBurstMiB", unit: "MiB" },
    {
      section: "4",
      label: `App API calls per round trip, warm (${sizes.warmRoundTrips} round trips; ask post not counted)`,
      figure: "m4.calls",
      unit: "",
      target: { text: "≤ 4", met: atMost(4) },
    },
    {
      section: "4",
      label: "… of which content-creating writes (comments, reactions, labels)",
      figure: "m4.writes",
      unit: "",
      target: { text: "≤ 2 (issue 10)", met: atMost(2) },
    },
    { section: "4", label: "… made for the ask / for the answer", figure: "m4.askCalls", unit: "" },
    { section: "4", label: "… for the answer", figure: "m4.answerCalls", unit: "" },
    {
      section: "4",
      label: "App API calls, a round trip whose reply was interpreted (an option with a note: + the comment saying how it was read)",
      figure: "m4.interpretedCalls",
      unit: "",
      target: { text: "≤ 4", met: atMost(4) },
    },
    { section: "4", label: "… of which content-creating writes", figure: "m4.interpretedWrites", unit: "", target: { text: "≤ 3 (issue 9)", met: atMost(3) } },
    { section: "4", label: "App API calls, first round trip after start-up (cold caches)", figure: "m4.coldCalls", unit: "" },
    { section: "5", label: "Reply posted → agent process started, webhook (ours), p50", figure: "m5.ours.p50", unit: "ms" },
    { section: "5", label: "… of which webhook arrival → process started, p50", figure: "m5.ours.arrival.p50", unit: "ms" },
    ...INTERVALS.flatMap((i): Row[] => [
      { section: "5", label: `Same, comment polling every ${i} s, p50`, figure: `m5.poll${i}.p50`, unit: "ms" },
      { section: "5", label: `… latency ratio polling ${i} s / ours, both from the reply's creation (p50)`, figure: `m5.poll${i}.latencyRatio`, unit: "×" },
      { section: "5", label: `… latency ratio polling ${i} s / ours from the webhook's arrival (p50)`, figure: `m5.poll${i}.latencyRatioArrival`, unit: "×" },
      {
        section: "5",
        label: `… API calls per round trip, polling ${i} s (replies within ${sizes.pollWindowSeconds} s)`,
        figure: `m5.poll${i}.calls`,
        unit: "",
      },
      { section: "5", label: `… API-call ratio polling ${i} s / ours`, figure: `m5.poll${i}.callsRatio`, unit: "×" },
    ]),
    {
      section: "5",
      label: "Ours: app API calls per round trip (measurement 4, feedback writes included; detection costs none)",
      figure: "m5.ours.calls",
      unit: "",
    },
  ];
}

function breakdowns(figures: ReturnType<typeof aggregate>): string {
  const routes = Object.keys(figures).filter((k) => k.startsWith("m4.route.") || k.startsWith("m4.coldRoute."));
  const names = [...new Set(routes.map((k) => k.replace(/^m4\.(cold)?[rR]oute\./, "")))].sort();
  const m4 = markdownTable(
    ["Endpoint (app's calls)", "Per warm round trip", "First round trip"],
    names.map((n) => [n, fmt(figures[`m4.route.${n}`]?.median ?? 0), fmt(figures[`m4.coldRoute.${n}`]?.median ?? 0)]),
    ["l", "r", "r"],
  );
  const kinds = [
    ...new Set(
      Object.keys(figures)
        .filter((k) => k.startsWith("m3.real.") || k.startsWith("m3.answer."))
        .map((k) => k.replace(/^m3\.(real|answer)\./, "")),
    ),
  ].sort();
  const m3 = markdownTable(
    ["Redis keys (per gate through the app)", "Bytes while parked", "Bytes added by the answer"],
    kinds.map((k) => [k, fmt(figures[`m3.real.${k}`]?.median ?? 0), fmt(figures[`m3.answer.${k}`]?.median ?? 0)]),
    ["l", "r", "r"],
  );
  const commands = Object.keys(figures)
    .filter((k) => k.startsWith("m1.redisCmd."))
    .map((k) => [k.slice("m1.redisCmd.".length), figures[k]!.median] as const)
    .sort((a, b) => b[1] - a[1]);
  const m1 = markdownTable(
    ["Redis command", "Per round trip"],
    commands.filter(([, n]) => n >= 0.05).map(([c, n]) => [c, fmt(n)]),
    ["l", "r"],
  );
  return `### API calls by endpoint (median over runs)\n\n${m4}\n\n### Redis per gate by key (median over runs)\n\n${m3}\n\n### Redis commands per round trip (median over runs)\n\n${m1}`;
}

function printProfiles(results: RunResult[]): void {
  for (const r of results) {
    for (const p of r.profiles) {
      console.log(`\n### CPU profile of the app, run ${r.run} (${fmt(p.totalMs / 1000)} s of CPU): ${p.file}\n`);
      console.log(
        markdownTable(
          ["Area", "Self ms", "Share"],
          p.byArea.slice(0, 15).map((a) => [a.area, fmt(a.ms), `${(a.share * 100).toFixed(1)} %`]),
          ["l", "r", "r"],
        ),
      );
      console.log("");
      console.log(
        markdownTable(
          ["Function", "Self ms", "Share"],
          p.byFunction.slice(0, 25).map((a) => [a.name, fmt(a.ms), `${(a.share * 100).toFixed(1)} %`]),
          ["l", "r", "r"],
        ),
      );
    }
  }
}

/** Prints the tables of a set of runs (just measured, or read back from a results file); returns the figures. */
function printReport(info: Machine, sizes: Sizes, results: RunResult[], flags: { quick: boolean; throttle: boolean }): Record<string, Spread> {
  const figures = aggregate(results.map(figuresOf));
  const pooled = distribution(results.flatMap((r) => r.replyToSpawn.samples.arrivalToProcessStart));
  for (const [name, value] of Object.entries({ p50: pooled.p50, p90: pooled.p90, p99: pooled.p99, max: pooled.max, n: pooled.n }))
    figures[`pooled.${name}`] = spread([value]);
  const table = summaryTable(rows(sizes), figures, results.length);
  const end = info.loadAverageAtEnd ? `, ${info.loadAverageAtEnd.join(" / ")} at end` : "";
  const header = `## escalation benchmark — ${info.date.slice(0, 10)}\n\nMachine: ${info.nproc} CPUs (\`nproc\`), ${info.cpu}, ${info.memoryGiB} GiB, Node ${info.node}, Linux ${info.kernel}; load average ${info.loadAverageAtStart.join(" / ")} at start${end}; contention ${info.contentionAtStart}× at start${info.contentionAtEnd ? `, ${info.contentionAtEnd}× at end` : ""} (wall ÷ CPU time of a fixed CPU-bound task: 1.0 = a core to spare). ${results.length} run(s)${flags.quick ? " (--quick)" : ""}, Octokit throttling ${flags.throttle ? "on" : "off"}; ${results.map((r) => `${fmt(r.seconds)} s`).join(", ")} per run.`;
  console.log(`${header}\n\n${table}\n\n${breakdowns(figures)}`);
  printProfiles(results);
  return figures;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean" },
      runs: { type: "string" },
      rate: { type: "string" },
      replies: { type: "string" },
      parked: { type: "string" },
      deliveries: { type: "string" },
      profile: { type: "boolean" },
      throttle: { type: "boolean" },
      "no-save": { type: "boolean" },
      report: { type: "string" },
      "sandbox-only": { type: "boolean" },
      "rebuild-only": { type: "boolean" },
      "loop-only": { type: "boolean" },
      roles: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(
      "usage: npm run bench -- [--quick] [--runs N] [--rate R] [--replies N] [--parked N] [--deliveries N] [--profile] [--throttle] [--no-save] [--sandbox-only] [--rebuild-only] [--loop-only] [--roles]\n       npm run bench -- --report tools/bench/results/<file>.json   (print a saved run's tables again)",
    );
    return 0;
  }
  if (values.report) {
    const saved = JSON.parse(readFileSync(values.report, "utf8")) as { machine: Machine; sizes: Sizes; throttle: boolean; quick: boolean; runs: RunResult[] };
    printReport(saved.machine, saved.sizes, saved.runs, { quick: saved.quick, throttle: saved.throttle });
    return 0;
  }
  const base = values.quick ? QUICK : FULL;
  const num = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Number(text));
  const sizes: Sizes = {
    ...base,
    runs: num(values.runs, base.runs),
    rate: num(values.rate, base.rate),
    replies: num(values.replies, base.replies),
    parked: num(values.parked, base.parked),
    deliveries: num(values.deliveries, base.deliveries),
  };
  const info = machine();
  const stamp = info.date.replace(/:/g, "-").replace(/\.\d+Z$/, "Z");
  const dir = join(tmpdir(), `escalation-bench-${stamp}`);
  console.error(
    `escalation bench: ${sizes.runs} run(s)${values.quick ? " (quick)" : ""}; ${info.nproc} CPUs, Node ${info.node}, load ${info.loadAverageAtStart.join(" ")}, contention ${info.contentionAtStart}×; artifacts in ${dir}`,
  );
  if (values["sandbox-only"]) return printSandboxCost(dir, sizes);
  if (values["rebuild-only"]) return printRebuild(dir, sizes);
  if (values.roles) return printRoles(dir, sizes);
  const results: RunResult[] = [];
  for (let run = 1; run <= sizes.runs; run++)
    results.push(await oneRun(run, sizes, { dir, profile: Boolean(values.profile), throttle: Boolean(values.throttle) }));
  info.loadAverageAtEnd = loadavg().map((v) => Math.round(v * 100) / 100);
  info.contentionAtEnd = contention();
  const figures = printReport(info, sizes, results, { quick: Boolean(values.quick), throttle: Boolean(values.throttle) });
  if (!values["no-save"]) {
    const file = writeResults(resolve(projectRoot, "tools/bench/results"), stamp, {
      machine: info,
      sizes,
      throttle: Boolean(values.throttle),
      quick: Boolean(values.quick),
      summary: figures,
      runs: results,
    });
    console.log(`\nresults: ${file}`);
  }
  if (values["loop-only"]) return 0;
  console.error("the workspace: preparation, then reply → agent started with it on and off (workspace.ts)");
  console.log("");
  await benchWorkspace(values.quick ? { files: 5000, commits: 200, samples: 3, issues: 3 } : { files: 5000, commits: 200, samples: 7, issues: 7 });
  await printSandboxCost(dir, sizes);
  return printRebuild(dir, sizes);
}

/** (7) Reconciliation at scale: the rebuild after a wipe, and periodic passes over an idle installation (scenarios/rebuild.ts). */
async function printRebuild(dir: string, sizes: Sizes): Promise<number> {
  const say = (line: string) => console.error(`  [rebuild] ${line}`);
  console.error(`(7) rebuild after a wipe: ${sizes.rebuildGates} open gates over ${sizes.rebuildRepos} repositories`);
  const r = await measureRebuild({ dir: join(dir, "rebuild"), repos: sizes.rebuildRepos, gates: sizes.rebuildGates, log: say });
  console.error(`(7) periodic reconciliation of an idle installation of ${sizes.idleRepos} repositories (${sizes.idleGatedRepos} with a question waiting)`);
  const idle = await measureIdlePasses({ dir: join(dir, "idle"), repos: sizes.idleRepos, gatedRepos: sizes.idleGatedRepos, passes: 3, log: say });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const pct = (b: { remaining: number; limit: number }) => `${b.remaining} of ${b.limit}`;
  console.log(`\n### Reconciliation at scale\n`);
  console.log(
    markdownTable(
      ["Measurement", "Value", "Target"],
      [
        [
          `Rebuild after a Redis wipe, ${r.gates} open gates over ${r.repos} repositories: app started → every gate in Redis`,
          `${fmt(r.bootToRebuiltSeconds)} s`,
          "< 60 s",
        ],
        ["… the start-up reconciliation alone", `${fmt(r.passSeconds)} s`, ""],
        ["… gates open in Redis after it", String(r.gatesRebuilt), String(r.gates)],
        ["… GitHub API calls, total / per open issue", `${r.apiCalls} / ${fmt(r.callsPerGate)}`, "≤ 1.5 per open issue"],
        ["… the installation's rate limit left after it: core (REST) / GraphQL", `${pct(r.remaining.core)} / ${pct(r.remaining.graphql)}`, ""],
        [
          "… CPU per rebuilt gate: the app (its boot included) / redis-server / the simulator",
          `${fmt(r.cpuPerGate.app)} / ${fmt(r.cpuPerGate.redis)} / ${fmt(r.cpuPerGate.simulator)} ms`,
          "",
        ],
        [
          `Periodic pass, idle installation of ${idle.repos} repositories (${idle.gatedRepos} with a question waiting): API calls a pass, median of ${idle.idlePassCalls.length}`,
          fmt(median(idle.idlePassCalls)),
          "",
        ],
        ["… calls about a repository with no open gate and no activity", String(idle.idleRepoCalls), "0"],
        ["… seconds a pass, median", fmt(median(idle.idlePassSeconds)), ""],
        ["… a pass after one comment in an idle repository (its webhook lost)", String(idle.activePassCalls), ""],
        ["… the start-up (full) pass over the same installation: calls / seconds", `${idle.fullPassCalls} / ${fmt(idle.fullPassSeconds)}`, ""],
      ],
      ["l", "r", "r"],
    ),
  );
  const routes = (title: string, counts: Record<string, number>) =>
    markdownTable(
      [title, "Calls"],
      Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .map(([route, n]) => [route, String(n)]),
      ["l", "r"],
    );
  console.log(`\n${routes("Endpoint (rebuild after a wipe)", r.callsByRoute)}\n\n${routes("Endpoint (one idle periodic pass)", idle.idleCallsByRoute)}`);
  return 0;
}

/**
 * (8) Runs of the app beside one runner (scenarios/roles.ts), each next to a run of one process
 * (ROLE=all) with the same replies, in alternating order; both with the sandbox on.
 */
async function printRoles(dir: string, sizes: Sizes): Promise<number> {
  const replies = Math.min(sizes.replies, 150);
  const runs: Array<{ all: { appCpu: number; p50: number; p99: number }; roles: RolesResult }> = [];
  for (let run = 1; run <= sizes.runs; run++) {
    const say = (line: string) => console.error(`  [roles ${run}] ${line}`);
    const measured: Partial<(typeof runs)[number]> = {};
    for (const topology of run % 2 === 1 ? (["all", "roles"] as const) : (["roles", "all"] as const)) {
      say(
        `${topology === "all" ? "ROLE=all" : "ROLE=app + one ROLE=runner"}: ${replies} replies at ${sizes.rate}/s${topology === "roles" ? `, then ${sizes.deliveries} deliveries` : ""}`,
      );
      const runDir = join(dir, `roles-${run}-${topology}`);
      const rig = await Rig.start({
        dir: runDir,
        agentConcurrency: sizes.agentConcurrency,
        throttle: false,
        profile: false,
        log: say,
        sandbox: true,
        runners: topology === "roles" ? 1 : 0,
      });
      try {
        if (topology === "roles") {
          measured.roles = await measureRoles(rig, {
            replies,
            rate: sizes.rate,
            deliveries: sizes.deliveries,
            concurrency: sizes.concurrency,
            resumeWindowSeconds: sizes.resumeWindowSeconds,
          });
        } else {
          const trips = await measureReplyToSpawn(rig, await rig.parkGates(REPOS.replies, replies, { inRedis: true }), sizes.rate);
          measured.all = { appCpu: trips.cpuPerRoundTrip.appSelf, p50: trips.arrivalToProcessStart.p50, p99: trips.arrivalToProcessStart.p99 };
        }
      } finally {
        await rig.close();
      }
    }
    runs.push(measured as (typeof runs)[number]);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const row = (label: string, values: number[], target = "", met?: (v: number) => boolean) => {
    const m = median(values);
    return [label, values.map((v) => fmt(v)).join(", "), fmt(m), target ? `${target} ${met?.(m) ? "✅" : "❌"}` : ""];
  };
  const r = runs.map((x) => x.roles);
  console.log(`
### The app beside a runner (ROLE=app + one ROLE=runner, sandbox on), ${sizes.runs} run(s)
`);
  console.log(
    markdownTable(
      ["Figure", "Each run", "Median", "Target"],
      [
        row(
          "App CPU per round trip, ROLE=app (ms)",
          r.map((x) => x.appCpuPerRoundTrip),
          "≤ 15 ms",
          (v) => v <= 15,
        ),
        row(
          "… the runner's, its agents included (ms)",
          r.map((x) => x.runnerCpuPerRoundTrip),
        ),
        row(
          "App CPU per round trip, one process (ROLE=all, its agents not counted), run beside it (ms)",
          runs.map((x) => x.all.appCpu),
        ),
        row(
          "Reply → agent process started on the runner, p50 (ms)",
          r.map((x) => x.replyToStart.p50),
        ),
        row(
          "… p99 (ms)",
          r.map((x) => x.replyToStart.p99),
        ),
        row(
          "… ROLE=all, p50 (ms)",
          runs.map((x) => x.all.p50),
        ),
        row(
          "… ROLE=all, p99 (ms)",
          runs.map((x) => x.all.p99),
        ),
        row(
          `Deliveries acknowledged per second, ROLE=app (${sizes.deliveries}, ${sizes.concurrency} in flight)`,
          r.map((x) => x.ours.ackPerSecond),
        ),
        row(
          "… a bare Probot app, before and after (mean)",
          r.map((x) => (x.bare[0]!.ackPerSecond + x.bare[1]!.ackPerSecond) / 2),
        ),
        row(
          "… ratio ours ÷ bare Probot",
          r.map((x) => x.ackRatio),
          "≥ 0.9×",
          (v) => v >= 0.9,
        ),
        row(
          "Answers recorded per second (inbound worker)",
          r.map((x) => x.ours.answersRecordedPerSecond),
          "≥ 500/s",
          (v) => v >= 500,
        ),
        row(
          "App CPU per delivery while acknowledging (ms)",
          r.map((x) => x.ours.appCpuPerDelivery),
        ),
        row(
          "Deliveries not acknowledged with 2xx: ours / bare",
          r.map((x) => x.ours.failed + x.bare[0]!.failed + x.bare[1]!.failed),
          "0",
          (v) => v === 0,
        ),
      ],
      ["l", "r", "r", "l"],
    ),
  );
  return 0;
}

/** Reply → agent started with the sandbox off and on, side by side (scenarios/sandboxCost.ts). */
async function printSandboxCost(dir: string, sizes: Sizes): Promise<number> {
  const replies = Math.min(sizes.replies, 150);
  console.error(
    `the sandbox: reply → agent started with AGENT_SANDBOX=none and bwrap side by side, in alternating blocks, ${replies} replies at ${sizes.rate}/s each`,
  );
  const r = await measureSandboxCost({
    dir: join(dir, "sandbox"),
    replies,
    rate: sizes.rate,
    agentConcurrency: sizes.agentConcurrency,
    log: (line) => console.error(line),
  });
  const row = (name: string, d: Distribution) => [name, fmt(d.p50), fmt(d.p90), fmt(d.p99), String(d.n)];
  console.log(`\n### Reply → agent started, sandbox off and on (${r.replies} replies at ${r.ratePerSecond}/s each)\n`);
  console.log(
    markdownTable(
      ["ms from the reply's arrival", "p50", "p90", "p99", "n"],
      [
        row("process start, AGENT_SANDBOX=none", r.off.processStart),
        row("process start, AGENT_SANDBOX=bwrap", r.on.processStart),
        row("first instruction, none", r.off.firstInstruction),
        row("first instruction, bwrap", r.on.firstInstruction),
      ],
      ["l", "r", "r", "r", "r"],
    ),
  );
  console.log(`\nThe sandbox adds ${fmt(r.addedP50Ms)} ms at p50 (×${r.ratio}); the target is ≤ 15 ms.`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
