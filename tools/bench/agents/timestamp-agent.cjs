// The benchmark's trivial agent. Its first instruction takes the time; performance.timeOrigin is
// when this process began (before Node loaded anything), so a line records both "the process
// started" and "its first instruction ran". Then it drains the task from stdin and exits 0.
// Usage: timestamp-agent.cjs OUT_FILE REPO ISSUE ROUND
const firstInstruction = performance.timeOrigin + performance.now();
const fs = require("node:fs");
const [out, repo, issue, round] = process.argv.slice(2);
fs.appendFileSync(out, `${repo} ${issue} ${round} ${performance.timeOrigin.toFixed(3)} ${firstInstruction.toFixed(3)} ${process.pid}\n`);
try {
  fs.readFileSync(0);
} catch {
  // no stdin (a poller started us with stdin ignored)
}
