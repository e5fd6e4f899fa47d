import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { spread, type Spread } from "./stats.js";
import { fmt, markdownTable } from "./table.js";

/** The machine a run was measured on; printed with the table and stored with the JSON. */
export interface Machine {
  date: string;
  nproc: number;
  cpu: string;
  node: string;
  kernel: string;
  memoryGiB: number;
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
  /** Wall time ÷ CPU time of a fixed CPU-bound task, at start: 1.0 on a machine with a core to spare. */
  contentionAtStart: number;
  contentionAtEnd?: number;
}

/**
 * How much of a core this process gets: a fixed CPU-bound task (hashing) timed in wall-clock and
 * in CPU time. 1.0 means a core to spare; 3.0 means other work kept the CPU three times as busy.
 */
export function contention(): number {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let data = Buffer.alloc(1024, 7);
  for (let i = 0; i < 20_000; i++) data = createHash("sha256").update(data).digest();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return Math.round((wall / Math.max(0.001, (used.user + used.system) / 1000)) * 100) / 100;
}

export function machine(): Machine {
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? "unknown",
    node: process.version,
    kernel: release(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadAverageAtStart: loadavg().map((v) => Math.round(v * 100) / 100),
    contentionAtStart: contention(),
  };
}

/** One line of the summary table: a figure of every run, how it is shown, and its target. */
export interface Row {
  section: string;
  label: string;
  figure: string;
  unit: string;
  target?: { text: string; met: (value: number) => boolean };
}

export type RunFigures = Record<string, number>;

export function aggregate(runs: readonly RunFigures[]): Record<string, Spread> {
  const names = new Set(runs.flatMap((r) => Object.keys(r)));
  return Object.fromEntries([...names].map((name) => [name, spread(runs.map((r) => r[name] ?? Number.NaN))]));
}

export function summaryTable(rows: readonly Row[], figures: Record<string, Spread>, runs: number): string {
  const body = rows.map((row) => {
    const s = figures[row.figure];
    const value = s?.median ?? Number.NaN;
    const range = !s || runs < 2 || s.runs.length < 2 ? "—" : `${fmt(s.min)}–${fmt(s.max)}`;
    const met = row.target ? (Number.isFinite(value) ? (row.target.met(value) ? "✅" : "❌") : "?") : "";
    return [row.section, row.label, fmt(value, row.unit), range, row.target?.text ?? "", met];
  });
  return markdownTable(["#", "Measurement", runs > 1 ? `Median of ${runs} runs` : "Value", "Spread (min–max)", "Target", "Met"], body, [
    "l",
    "l",
    "r",
    "r",
    "l",
    "l",
  ]);
}

export function writeResults(dir: string, stamp: string, content: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(content, (_, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2)}\n`);
  return file;
}
