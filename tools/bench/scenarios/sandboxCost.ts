import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { startSandbox } from "../../../src/sandbox/sandbox.js";
import { REPOS, Rig } from "../rig.js";
import { distribution, type Distribution } from "../stats.js";
import { measureReplyToSpawn } from "./replyToSpawn.js";

/** Reply → agent started with the sandbox off and on, the same replies at the same rate. */
export interface SandboxCostResult {
  /** Per mode. */
  replies: number;
  ratePerSecond: number;
  off: { processStart: Distribution; firstInstruction: Distribution };
  on: { processStart: Distribution; firstInstruction: Distribution };
  /** on − off at p50 of the agent's process start, in ms (the target is ≤ 15). */
  addedP50Ms: number;
  /** on / off at p50. */
  ratio: number;
}

/** Blocks per mode: the modes alternate (off, on, on, off, …) so a load that drifts meets both alike. */
const BLOCKS = 4;

/**
 * Two apps side by side, each its own rig: AGENT_SANDBOX=none and bwrap. The replies go in
 * alternating blocks, one app at a time, and are pooled per mode. Measured by the trivial agent's own
 * clocks (processStart, firstInstruction) from the reply's arrival, as (1).
 */
export async function measureSandboxCost(options: {
  dir: string;
  replies: number;
  rate: number;
  agentConcurrency: number;
  log: (line: string) => void;
}): Promise<SandboxCostResult> {
  await refuseWithoutSandbox(join(options.dir, "sandbox-probe"));
  const rigs: Partial<Record<"off" | "on", Rig>> = {};
  const samples = {
    off: { processStart: [] as number[], firstInstruction: [] as number[] },
    on: { processStart: [] as number[], firstInstruction: [] as number[] },
  };
  try {
    for (const mode of ["off", "on"] as const) {
      rigs[mode] = await Rig.start({
        dir: join(options.dir, `sandbox-${mode}`),
        agentConcurrency: options.agentConcurrency,
        throttle: false,
        profile: false,
        log: options.log,
        sandbox: mode === "on",
      });
    }
    const perBlock = Math.max(1, Math.round(options.replies / BLOCKS));
    for (let block = 0; block < BLOCKS; block++) {
      const order = block % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      for (const mode of order) {
        const rig = rigs[mode]!;
        const pool = await rig.parkGates(REPOS.replies, perBlock, { inRedis: true });
        const result = await measureReplyToSpawn(rig, pool, options.rate);
        if (result.missing > 0) options.log(`    sandbox ${mode}: ${result.missing} agent start(s) missing`);
        samples[mode].processStart.push(...result.samples.arrivalToProcessStart);
        samples[mode].firstInstruction.push(...result.samples.arrivalToFirstInstruction);
      }
    }
  } finally {
    await Promise.all(Object.values(rigs).map((rig) => rig.close()));
  }
  const measured = {
    off: { processStart: distribution(samples.off.processStart), firstInstruction: distribution(samples.off.firstInstruction) },
    on: { processStart: distribution(samples.on.processStart), firstInstruction: distribution(samples.on.firstInstruction) },
  };
  const off = measured.off;
  const on = measured.on;
  const round1 = (v: number) => Math.round(v * 10) / 10;
  return {
    replies: samples.off.processStart.length,
    ratePerSecond: options.rate,
    off,
    on,
    addedP50Ms: round1(on.processStart.p50 - off.processStart.p50),
    ratio: Math.round((on.processStart.p50 / off.processStart.p50) * 100) / 100,
  };
}

/** Stops the measurement at once, in the sandbox's own words, on a host where it cannot start (no bwrap, socat or nsenter). */
async function refuseWithoutSandbox(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, pino({ level: "silent" }), { dir, proxySocket: "proxy.sock", passThrough: [] });
  sandbox.close();
  if (sandbox.problem) throw new Error(`The sandbox cannot be measured on this host: ${sandbox.problem}`);
}
