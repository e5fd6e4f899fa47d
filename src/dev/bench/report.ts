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
    const range = !s || runs < 2 ? "—" : `${fmt(s.min)}–${fmt(s.max)}`;
    const met = row.target ? (Number.isFinite(value) ? (row.target.met(value) ? "✅" : "❌") : "?") : "";
    return [row.section, row.label, fmt(value, row.unit), range, row.target?.text ?? "", met];
  });
  return markdownTable(["#", "Measurement", runs > 1 ? `Median of ${runs} runs` : "Value", "Spread (min–max)", "Target", "Met"], body, ["l", "l", "r", "r", "l", "l"]);
}

export function writeResults(dir: string, stamp: string, content: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(content, (_, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2)}\n`);
  return file;
}
