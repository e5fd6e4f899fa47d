import { join } from "node:path";
import { REPOS, Rig } from "../rig.js";
import type { Distribution } from "../stats.js";
import { measureReplyToSpawn } from "./replyToSpawn.js";

/** Reply → agent started with the sandbox off and on, the same replies at the same rate. */
export interface SandboxCostResult {
  replies: number;
  ratePerSecond: number;
  off: { processStart: Distribution; firstInstruction: Distribution };
  on: { processStart: Distribution; firstInstruction: Distribution };
  /** on − off at p50 of the agent's process start, in ms (the target is ≤ 15). */
  addedP50Ms: number;
  /** on / off at p50. */
  ratio: number;
}

/**
 * Two apps one after the other, each its own rig: AGENT_SANDBOX=none, then bwrap. Measured by the
 * trivial agent's own clocks (processStart, firstInstruction) from the reply's arrival, as (1).
 */
export async function measureSandboxCost(options: { dir: string; replies: number; rate: number; agentConcurrency: number; log: (line: string) => void }): Promise<SandboxCostResult> {
  const measured: Partial<Record<"off" | "on", SandboxCostResult["off"]>> = {};
  for (const mode of ["off", "on"] as const) {
    const rig = await Rig.start({ dir: join(options.dir, `sandbox-${mode}`), agentConcurrency: options.agentConcurrency, throttle: false, profile: false, log: options.log, sandbox: mode === "on" });
    try {
      const pool = await rig.parkGates(REPOS.replies, options.replies, { inRedis: true });
      const result = await measureReplyToSpawn(rig, pool, options.rate);
      if (result.missing > 0) options.log(`    sandbox ${mode}: ${result.missing} agent start(s) missing`);
      measured[mode] = { processStart: result.arrivalToProcessStart, firstInstruction: result.arrivalToFirstInstruction };
    } finally {
      await rig.close();
    }
  }
  const off = measured.off!;
  const on = measured.on!;
  const round1 = (v: number) => Math.round(v * 10) / 10;
  return {
    replies: options.replies,
    ratePerSecond: options.rate,
    off,
    on,
    addedP50Ms: round1(on.processStart.p50 - off.processStart.p50),
    ratio: Math.round((on.processStart.p50 / off.processStart.p50) * 100) / 100,
  };
}
