import { parseArgs } from "node:util";
import { planFromSeed } from "./plan.js";
import { TABLE_HEADER, formatRow, formatSummary } from "./report.js";
import { DEFAULT_TIMINGS, runSuite } from "./suite.js";

/**
 * `npm run chaos`: randomized runs of the whole loop with real processes (the app as `node
 * dist/main.js`, redis-server with its append-only file, the GitHub simulator) and faults injected
 * at random steps. Prints a table and totals; exits 1 on any violation.
 *
 *   npm run chaos -- --runs 100 --seed 42    random runs (the seed is printed; default: time-based)
 *   npm run chaos -- --short                 the fixed short suite that `npm test` runs
 *   npm run chaos -- --run-seed 123456789    one run, replayed from a seed in a table
 *   npm run chaos -- --parallel 2            runs at a time (default 1; timings are less tight alone)
 */
const USAGE = "usage: npm run chaos -- [--runs N] [--seed S] [--short] [--run-seed S] [--deadline SECONDS] [--parallel N]";

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        runs: { type: "string" },
        seed: { type: "string" },
        short: { type: "boolean" },
        "run-seed": { type: "string" },
        deadline: { type: "string" },
        parallel: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const number = (text: string | undefined, what: string) => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text)) throw new Error(`${what} must be a non-negative integer (got ${text})`);
    return Number(text);
  };
  const runs = number(values.runs, "--runs") ?? 10;
  const seed = number(values.seed, "--seed") ?? Date.now() % 1_000_000_000;
  const runSeed = number(values["run-seed"], "--run-seed");
  const deadlineMs = (number(values.deadline, "--deadline") ?? DEFAULT_TIMINGS.deadlineMs / 1000) * 1000;
  const concurrency = number(values.parallel, "--parallel") ?? 1;
  const plans = runSeed !== undefined ? [planFromSeed(runSeed, 0)] : undefined;
  console.log(values.short ? "chaos: the short suite" : plans ? `chaos: one run from run seed ${runSeed}` : `chaos: ${runs} run(s), seed ${seed}`);
  console.log(TABLE_HEADER);
  const report = await runSuite({ seed, runs, short: values.short, plans, deadlineMs, concurrency, onRun: (r) => console.log(formatRow(r)) });
  console.log("");
  console.log(formatSummary(report.summary));
  console.log(`logs: ${report.artifactsDir}\nreport: ${report.jsonFile}`);
  return report.summary.violations === 0 && report.summary.errors === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
