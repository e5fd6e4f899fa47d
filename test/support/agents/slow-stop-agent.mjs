#!/usr/bin/env node
// Agent for the Ctrl-C tests (test/e2e/ctrlC.test.ts): runs until stopped, and on SIGTERM takes
// STOP_MS to wind down, as an agent saving its work would. One JSON line per event in LOG_FILE:
// "start", "signal" (SIGTERM received), "stopped" (wound down, exiting).
// Usage: slow-stop-agent.mjs LOG_FILE STOP_MS
import { appendFileSync, readFileSync } from "node:fs";

const [logFile, stopMs = "500"] = process.argv.slice(2);
const log = (event) => appendFileSync(logFile, `${JSON.stringify({ event, pid: process.pid, at: Date.now() })}\n`);

readFileSync(0, "utf8"); // the task: read to its end, as a real agent would
log("start");
const working = setInterval(() => undefined, 60_000);
process.on("SIGTERM", () => {
  log("signal");
  setTimeout(() => {
    clearInterval(working);
    log("stopped");
    process.exit(143);
  }, Number(stopMs));
});
