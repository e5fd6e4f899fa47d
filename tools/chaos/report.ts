import { FAULT_KINDS } from "./plan.js";
import type { RunResult } from "./runner.js";

export interface SuiteSummary {
  seed: number | undefined;
  runs: number;
  ok: number;
  violated: number;
  errors: number;
  violations: number;
  /** Runs in which each fault kind struck (a run with two kills counts once per kind). */
  faultsByKind: Record<string, number>;
  /** Fault injections of each kind, all runs together. */
  injectionsByKind: Record<string, number>;
  medianSeconds: number;
  totalSeconds: number;
  spawns: { started: number; completed: number };
}

export function summarize(results: RunResult[], seed: number | undefined): SuiteSummary {
  const kinds = ["two-replicas", "runners", ...FAULT_KINDS];
  const faultsByKind = Object.fromEntries(kinds.map((k) => [k, results.filter((r) => r.faultKinds.includes(k)).length]));
  const injectionsByKind = Object.fromEntries(kinds.map((k) => [k, results.reduce((sum, r) => sum + r.faultKinds.filter((f) => f === k).length, 0)]));
  const seconds = results.map((r) => r.seconds).sort((a, b) => a - b);
  const mid = Math.floor(seconds.length / 2);
  const median = seconds.length === 0 ? 0 : seconds.length % 2 ? seconds[mid]! : (seconds[mid - 1]! + seconds[mid]!) / 2;
  return {
    seed,
    runs: results.length,
    ok: results.filter((r) => r.outcome === "ok").length,
    violated: results.filter((r) => r.outcome === "violated").length,
    errors: results.filter((r) => r.outcome === "error").length,
    violations: results.reduce((sum, r) => sum + r.violations.length, 0),
    faultsByKind,
    injectionsByKind,
    medianSeconds: Math.round(median * 10) / 10,
    totalSeconds: Math.round(seconds.reduce((a, b) => a + b, 0)),
    spawns: { started: results.reduce((s, r) => s + r.agentsStarted, 0), completed: results.reduce((s, r) => s + r.agentsCompleted, 0) },
  };
}

const pad = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

export const TABLE_HEADER = `${pad("run", 4)} ${pad("seed", 11)} ${pad("faults", 62)} ${pad("outcome", 9)} ${pad("viol.", 5)} ${"secs".padStart(6)}`;

/** One table row; violations follow on their own indented lines. */
export function formatRow(r: RunResult): string {
  const row = `${pad(String(r.index), 4)} ${pad(String(r.seed), 11)} ${pad(r.faults || "none", 62)} ${pad(r.outcome, 9)} ${pad(String(r.violations.length), 5)} ${r.seconds.toFixed(1).padStart(6)}`;
  return [row, ...r.violations.map((v) => `       ! ${v}`)].join("\n");
}

export function formatSummary(s: SuiteSummary): string {
  const kinds = Object.entries(s.faultsByKind)
    .map(([k, n]) => `${k} ${n} run(s)/${s.injectionsByKind[k]} injection(s)`)
    .join(", ");
  return [
    `runs: ${s.runs} (ok ${s.ok}, violated ${s.violated}, harness errors ${s.errors})${s.seed !== undefined ? ` · seed ${s.seed}` : ""}`,
    `faults: ${kinds}`,
    `violations: ${s.violations}`,
    `agent processes: ${s.spawns.started} started, ${s.spawns.completed} completed`,
    `seconds per run: median ${s.medianSeconds} · total ${s.totalSeconds}`,
  ].join("\n");
}
