import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";
import { randomPlan, shortPlans, type RunPlan } from "./plan.js";
import { summarize, type SuiteSummary } from "./report.js";
import { runScenario, type RunOptions, type RunResult } from "./runner.js";

export interface SuiteOptions extends Partial<Omit<RunOptions, "artifactsDir">> {
  /** Random runs from this seed; ignored with `short`. */
  seed?: number;
  runs?: number;
  /** The fixed short suite (every fault kind), as `npm test` runs it. */
  short?: boolean;
  /** Explicit plans (tests); overrides seed, runs and short. */
  plans?: RunPlan[];
  /** Default test-artifacts/chaos/<timestamp>. */
  artifactsDir?: string;
  /** Runs at a time (default 1). Each run has its own Redis, simulator and app processes. */
  concurrency?: number;
  /** Called after each run (the CLI prints its table row). */
  onRun?: (result: RunResult) => void;
}

export interface SuiteReport {
  summary: SuiteSummary;
  results: RunResult[];
  artifactsDir: string;
  /** The JSON report written under test-artifacts/. */
  jsonFile: string;
}

export const DEFAULT_TIMINGS = { deadlineMs: 60_000, drainMs: 40_000, settleMs: 2000 } as const;

/** Runs the plans one after another and writes test-artifacts/chaos-<date>.json. */
export async function runSuite(options: SuiteOptions): Promise<SuiteReport> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const artifactsDir = options.artifactsDir ?? resolve(projectRoot, "test-artifacts", "chaos", stamp);
  mkdirSync(artifactsDir, { recursive: true });
  const seed = options.short || options.plans ? undefined : (options.seed ?? 1);
  const plans = options.plans ?? (options.short ? shortPlans() : Array.from({ length: options.runs ?? 10 }, (_, i) => randomPlan(seed!, i)));
  const results: RunResult[] = [];
  const queue = [...plans];
  const lane = async () => {
    for (let plan = queue.shift(); plan; plan = queue.shift()) {
      const result = await runScenario(plan, {
        artifactsDir,
        deadlineMs: options.deadlineMs ?? DEFAULT_TIMINGS.deadlineMs,
        drainMs: options.drainMs ?? DEFAULT_TIMINGS.drainMs,
        settleMs: options.settleMs ?? DEFAULT_TIMINGS.settleMs,
        env: options.env,
      });
      results.push(result);
      options.onRun?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, lane));
  results.sort((a, b) => a.index - b.index);
  const summary = summarize(results, seed);
  const jsonFile = resolve(projectRoot, "test-artifacts", `chaos-${stamp}.json`);
  mkdirSync(resolve(projectRoot, "test-artifacts"), { recursive: true });
  writeFileSync(jsonFile, `${JSON.stringify({ summary, plans, results }, null, 2)}\n`);
  writeFileSync(join(artifactsDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  return { summary, results, artifactsDir, jsonFile };
}
