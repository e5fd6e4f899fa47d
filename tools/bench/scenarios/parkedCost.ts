import { issueKey } from "../../../src/store/issueKey.js";
import { notesKey } from "../../../src/store/issueNotes.js";
import { REPOS, type AppMemory, type Rig } from "../rig.js";

/**
 * (3) The cost of a parked gate, with `count` gates parked at once (seeded in Redis as the store modules
 * write them, see seedParkedGates): Redis bytes per gate (MEMORY USAGE over the keys the store modules
 * name for it, and used_memory's growth), processes the app holds while they wait, and the app's
 * memory before and after.
 */
export interface ParkedCostResult {
  gates: number;
  parkSeconds: number;
  /** INFO used_memory growth over parking them all, per gate. */
  usedMemoryPerGate: number;
  /** MEMORY USAGE per gate over a sample, by key, plus its share of the open-gates index. */
  keysPerGate: Record<string, number> & { total: number };
  /** Processes below the app while every gate is parked and nothing runs, but its one orphan watchdog. */
  appProcesses: number;
  /** The app's orphan watchdogs (one per app process, whatever the number of gates). */
  appWatchdogs: number;
  appMemoryBefore: AppMemory;
  appMemoryAfter: AppMemory;
}

const SAMPLE = 200;

export async function parkMany(rig: Rig, count: number): Promise<{ result: ParkedCostResult; gates: Array<{ repo: string; issue: number; gateId: string }> }> {
  await rig.quiesce();
  const appMemoryBefore = await rig.app.memory();
  const usedBefore = await rig.usedMemory();
  const started = Date.now();
  const gates = await rig.seedGates(REPOS.parked, count);
  const parkSeconds = (Date.now() - started) / 1000;
  const usedAfter = await rig.usedMemory();
  await rig.quiesce({ feedback: false });
  const { agents: appProcesses, watchdogs: appWatchdogs } = rig.appDescendants();
  const appMemoryAfter = await rig.app.memory();

  const {
    gates: { keys },
    rounds,
    statusLog,
  } = rig.store;
  const sample = gates.filter((_, i) => i % Math.max(1, Math.floor(gates.length / SAMPLE)) === 0).slice(0, SAMPLE);
  const sums: Record<string, number> = { gate: 0, issue: 0, issueGates: 0, issueSpawns: 0, issueStatusLog: 0, issueNotes: 0 };
  for (const gate of sample) {
    const ref = { repo: gate.repo, issue: gate.issue };
    sums.gate! += await rig.keyBytes(keys.gate(gate.gateId));
    sums.issue! += await rig.keyBytes(issueKey(rig.prefix, ref));
    sums.issueGates! += await rig.keyBytes(keys.issueGates(ref));
    sums.issueSpawns! += await rig.keyBytes(rounds.spawnsKey(ref));
    sums.issueStatusLog! += await rig.keyBytes(statusLog.logKey(ref));
    sums.issueNotes! += await rig.keyBytes(notesKey(rig.prefix, ref));
  }
  const perGate: Record<string, number> = {};
  for (const [name, sum] of Object.entries(sums)) perGate[name] = sum / sample.length;
  const openCount = await rig.redis.zcard(keys.openGates());
  perGate.openGatesShare = (await rig.keyBytes(keys.openGates())) / Math.max(1, openCount);
  const total = Object.values(perGate).reduce((s, v) => s + v, 0);
  return {
    gates,
    result: {
      gates: count,
      parkSeconds,
      usedMemoryPerGate: (usedAfter - usedBefore) / count,
      keysPerGate: { ...perGate, total },
      appProcesses,
      appWatchdogs,
      appMemoryBefore,
      appMemoryAfter,
    },
  };
}
