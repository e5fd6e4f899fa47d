#!/usr/bin/env node
// Test agent: records what it was given (argv, env, stdin task) as JSON in the directory named by
// its first argument, then behaves according to its mode.
// Usage: recording-agent.mjs OUT_DIR ROUND [MODE]
//
// The issue title may override MODE with "[mode:NAME]", so one app (one AGENT_COMMAND) can run
// different agents on different issues. Modes:
//   ask            round 0: asks "Which database…" (Postgres / SQLite); later rounds succeed
//   ask-every      asks that question in every round (for the round limit)
//   ask-path       round 0: the database question, about the path src/db/cache.ts (for CODEOWNERS)
//   ask2           round 0: two questions in one ask (the database, and a free-text one)
//   ask-default    round 0: the database question with --default SQLite --timeout 2s
//   ask2-default   round 0: the database question (no default), then one with --default yes --timeout 2s
//   ask-defaults2  round 0: two questions, both with defaults, no timeout (for /defaults)
//   ask-nodefault  round 0: a free-text question, no default, --timeout 1s for the whole ask
//   approval       round 0: asks for approval of "Deploy v2 to production?" with --approvers 2
//   approval-repo  round 0: asks for approval without --approvers (the repository's count applies)
//   done           succeeds at once
//   fail           prints two lines and exits 3, every round
//   sleep          runs for a minute; on SIGTERM records it and exits 143
//   ask-sleep      round 0: the database question; later rounds as sleep (a round that takes an answer and runs on)
//   stubborn       runs for a minute and ignores SIGTERM (records it), so only SIGKILL ends it
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const startedAt = Date.now();
const [outDir, round, argvMode = "ask"] = process.argv.slice(2);
const task = readFileSync(0, "utf8");
const mode = /^# Task: .*\[mode:([a-z0-9-]+)\]/m.exec(task)?.[1] ?? argvMode;
mkdirSync(outDir, { recursive: true });
const record = join(outDir, `round-${round}-${process.pid}.json`);
writeFileSync(record, JSON.stringify({ startedAt, pid: process.pid, mode, argv: process.argv.slice(2), env: process.env, task, cwd: process.cwd() }));

const DATABASE = ["--question", "Which database should the cache use?", "--option", "Postgres", "--option", "SQLite"];
const ask = (...args) => execFileSync("escalate", ["ask", ...args], { stdio: "inherit" });
/** Written as signal-PID-NAME when a signal arrives, so a test can see what the agent was sent and when. */
const noteSignal = (signal) => writeFileSync(join(outDir, `signal-${process.pid}-${signal}`), String(Date.now()));
const sleepMinute = () => new Promise((r) => setTimeout(r, 60_000));

switch (mode) {
  case "ask":
    if (round === "0") ask(...DATABASE);
    break;
  case "ask-path":
    if (round === "0") ask(...DATABASE, "--path", "src/db/cache.ts");
    break;
  case "ask-every":
    ask(...DATABASE);
    break;
  case "ask2":
    if (round === "0") ask(...DATABASE, "--question", "Should old entries expire?");
    break;
  case "ask-default":
    if (round === "0") ask(...DATABASE, "--default", "SQLite", "--timeout", "2s");
    break;
  case "ask2-default":
    if (round === "0") ask(...DATABASE, "--question", "Should old entries expire?", "--default", "yes", "--timeout", "2s");
    break;
  case "ask-defaults2":
    if (round === "0") ask(...DATABASE, "--default", "SQLite", "--question", "How long should entries live?", "--default", "1h");
    break;
  case "ask-nodefault":
    if (round === "0") ask("--timeout", "1s", "--question", "Which region should we deploy to?"); // a timeout for the whole ask
    break;
  case "approval":
    if (round === "0") ask("--kind", "approval", "--approvers", "2", "--question", "Deploy v2 to production?");
    break;
  case "approval-repo":
    if (round === "0") ask("--kind", "approval", "--question", "Deploy v2 to production?");
    break;
  case "done":
    break;
  case "fail":
    console.error("something broke\nlast line of output");
    process.exit(3);
    break;
  case "ask-sleep":
    if (round === "0") {
      ask(...DATABASE);
      break;
    }
  // falls through: later rounds sleep
  case "sleep":
    process.on("SIGTERM", () => {
      noteSignal("SIGTERM");
      process.exit(143);
    });
    await sleepMinute();
    break;
  case "stubborn":
    process.on("SIGTERM", () => noteSignal("SIGTERM"));
    await sleepMinute();
    break;
  default:
    console.error(`recording-agent: unknown mode ${mode}`);
    process.exit(2);
}
