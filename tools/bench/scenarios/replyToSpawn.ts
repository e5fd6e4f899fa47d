import { contention } from "../report.js";
import { distribution, type Distribution } from "../stats.js";
import { sleep, waitUntil } from "../pool.js";
import { cpuDelta, type CpuTimes, type ParkedGate, type Rig } from "../rig.js";

/**
 * (1) Reply → agent process started, over `gates.length` answered gates. Humans reply in the
 * simulator at random (Poisson) times at `ratePerSecond`, open loop: a slow app does not slow the
 * replies down. Each webhook goes out through the simulator's dispatcher, then the real path runs:
 * webhook → inbound queue → record the answer → spawn job → agent process.
 *
 * Times, per gate: `posted` (the reply was created in the simulator), `arrival` (the app's
 * receivedAt, taken when the handler turns the delivery into an event), `spawn` (the app's
 * agent.started: the child has a pid), `process start` (the agent's performance.timeOrigin) and
 * `first instruction` (the agent's first statement, after Node has booted).
 */
export interface ReplyToSpawnResult {
  answered: number;
  ratePerSecond: number;
  /** Agents started per second from the first reply to the last start: below the offered rate, the loop was saturated and latency is queueing. */
  achievedPerSecond: number;
  /** The machine's contention just before the replies (see report.ts). */
  contention: number;
  seconds: number;
  missing: number;
  arrivalToProcessStart: Distribution;
  arrivalToFirstInstruction: Distribution;
  arrivalToSpawnEvent: Distribution;
  postedToArrival: Distribution;
  postedToProcessStart: Distribution;
  /** CPU ms per round trip from the first reply until every queue drained (its feedback included), by process. */
  cpuPerRoundTrip: CpuTimes;
  /** Redis commands per round trip made by the app (the benchmark's own queue polls taken out), by command. */
  redisCommandsPerRoundTrip: Record<string, number>;
  /** The raw samples (ms), so several runs can be pooled. */
  samples: Pick<Latencies, "arrivalToProcessStart" | "arrivalToSpawnEvent" | "arrivalToFirstInstruction">;
}

export interface Latencies {
  arrivalToProcessStart: number[];
  arrivalToFirstInstruction: number[];
  arrivalToSpawnEvent: number[];
  postedToArrival: number[];
  postedToProcessStart: number[];
  missing: number;
}

/** Joins what the app reported (agent.started) with what the agents wrote, per replied gate. */
export function latencies(rig: Rig, replies: ReadonlyArray<{ gate: { repo: string; issue: number }; postedAt: number }>): Latencies {
  rig.agents.poll();
  const out: Latencies = {
    arrivalToProcessStart: [],
    arrivalToFirstInstruction: [],
    arrivalToSpawnEvent: [],
    postedToArrival: [],
    postedToProcessStart: [],
    missing: 0,
  };
  for (const { gate, postedAt } of replies) {
    const started = rig.agentStarted(gate.repo, gate.issue);
    const agent = rig.agents.first(gate.repo, gate.issue);
    if (!started || !agent) {
      out.missing++;
      continue;
    }
    const arrival = started.at - started.replyToSpawnMs;
    out.arrivalToProcessStart.push(agent.processStart - arrival);
    out.arrivalToFirstInstruction.push(agent.firstInstruction - arrival);
    out.arrivalToSpawnEvent.push(started.replyToSpawnMs);
    out.postedToArrival.push(arrival - postedAt);
    out.postedToProcessStart.push(agent.processStart - postedAt);
  }
  return out;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** Exponential gaps: a Poisson process of `ratePerSecond`. */
export function poissonSchedule(count: number, ratePerSecond: number, random = Math.random): number[] {
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) {
    t += (-Math.log(1 - random()) / ratePerSecond) * 1000;
    times.push(t);
  }
  return times;
}

export async function measureReplyToSpawn(rig: Rig, gates: readonly ParkedGate[], ratePerSecond: number): Promise<ReplyToSpawnResult> {
  await rig.quiesce({ feedback: false });
  const contentionBefore = contention();
  const cpuBefore = await rig.cpu();
  const commandsBefore = await rig.redisCommands();
  const benchBefore = { ...rig.benchCommands };
  const schedule = poissonSchedule(gates.length, ratePerSecond);
  const replies: Array<{ gate: ParkedGate; postedAt: number }> = [];
  const started = Date.now();
  for (let i = 0; i < gates.length; i++) {
    const wait = started + schedule[i]! - Date.now();
    if (wait > 0) await sleep(wait);
    const { postedAt } = rig.reply(gates[i]!);
    replies.push({ gate: gates[i]!, postedAt });
  }
  await waitUntil(
    "every answered gate's agent",
    () => {
      rig.agents.poll();
      return replies.every(({ gate }) => rig.agents.first(gate.repo, gate.issue) && rig.agentStarted(gate.repo, gate.issue));
    },
    120_000,
    100,
  ).catch(() => undefined); // report what arrived; `missing` says how many did not
  const seconds = (Date.now() - started) / 1000;
  // CPU and commands until the feedback queue has drained too, so every round trip's writes are in
  // whatever the host's load (a saturated app left part of them outside, and looked cheaper).
  await rig.quiesce({ timeoutMs: 60_000 }).catch(() => undefined);
  const cpuPerRoundTrip = cpuDelta(await rig.cpu(), cpuBefore, gates.length);
  const commandsAfter = await rig.redisCommands();
  for (const [command, calls] of Object.entries(rig.benchCommands))
    commandsAfter[command] = (commandsAfter[command] ?? 0) - (calls - (benchBefore[command] ?? 0));
  const redisCommandsPerRoundTrip: Record<string, number> = {};
  for (const [command, calls] of Object.entries(commandsAfter)) {
    const delta = (calls - (commandsBefore[command] ?? 0)) / gates.length;
    if (delta > 0) redisCommandsPerRoundTrip[command] = delta;
  }
  const l = latencies(rig, replies);
  const starts = replies.flatMap(({ gate }) => rig.agents.first(gate.repo, gate.issue)?.processStart ?? []);
  const firstReply = Math.min(...replies.map((r) => r.postedAt));
  return {
    answered: gates.length,
    ratePerSecond,
    achievedPerSecond: starts.length / Math.max(0.001, (Math.max(...starts) - firstReply) / 1000),
    contention: contentionBefore,
    seconds,
    missing: l.missing,
    arrivalToProcessStart: distribution(l.arrivalToProcessStart),
    arrivalToFirstInstruction: distribution(l.arrivalToFirstInstruction),
    arrivalToSpawnEvent: distribution(l.arrivalToSpawnEvent),
    postedToArrival: distribution(l.postedToArrival),
    postedToProcessStart: distribution(l.postedToProcessStart),
    cpuPerRoundTrip,
    redisCommandsPerRoundTrip,
    samples: {
      arrivalToProcessStart: l.arrivalToProcessStart.map(round1),
      arrivalToSpawnEvent: l.arrivalToSpawnEvent.map(round1),
      arrivalToFirstInstruction: l.arrivalToFirstInstruction.map(round1),
    },
  };
}
