#!/usr/bin/env node
// Test agent: records what it was given (argv, env, stdin task) as JSON in the directory named by
// its first argument, then, in round 0 only, asks the question given in ASK_QUESTION-like argv.
// Usage: recording-agent.mjs OUT_DIR ROUND [ask|done|fail|sleep]
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const startedAt = Date.now();
const [outDir, round, mode = "ask"] = process.argv.slice(2);
const task = readFileSync(0, "utf8");
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, `round-${round}-${process.pid}.json`),
  JSON.stringify({ startedAt, argv: process.argv.slice(2), env: process.env, task, cwd: process.cwd() }),
);
if (mode === "ask" && round === "0") {
  execFileSync("escalate", ["ask", "--question", "Which database should the cache use?", "--option", "Postgres", "--option", "SQLite"], { stdio: "inherit" });
} else if (mode === "fail") {
  console.error("something broke\nlast line of output");
  process.exit(3);
} else if (mode === "sleep") {
  await new Promise((r) => setTimeout(r, 60_000));
}
