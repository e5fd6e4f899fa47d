#!/usr/bin/env node
// Agent for the fault-injection suite (`npm run chaos`, tools/chaos/). Appends one JSON line per
// event to the log file named by its first argument, so the suite can count spawns per round and
// per answered gate, and tell a completed round from one killed mid-way.
// Usage: chaos-agent.mjs LOG_FILE ROUND ISSUE [ROUND0_MS] [RESUME_MS]
//
//   round 0   logs "start", works ROUND0_MS, asks one question with `escalate ask`, logs "end"
//   round >0  logs "start" (with the gate it resumes: the last answered question in its task),
//             works RESUME_MS, logs "end"
// A round that logged "start" but not "end" was killed. SIGTERM is logged as "signal" and honoured;
// an ask GitHub refused (its 5xx burst) is logged as "failed" and exits 1, for the app to retry.
import { execFile } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { promisify } from "node:util";

const [logFile, roundText, issueText, round0Ms = "300", resumeMs = "1500"] = process.argv.slice(2);
const round = Number(roundText);
const issue = Number(issueText);
const task = readFileSync(0, "utf8");

/** One line per event; appends of a few hundred bytes are atomic, so concurrent agents do not interleave. */
const log = (event, extra = {}) =>
  appendFileSync(logFile, `${JSON.stringify({ event, issue, round, pid: process.pid, ppid: process.ppid, at: Date.now(), ...extra })}\n`);

/** The gates folded into the task, oldest first: their ask comment ids and the answer token the human wrote. */
function gatesInTask(text) {
  const sections = text.split(/^### Round /m).slice(1);
  return sections.map((section) => ({
    gate: /#issuecomment-(\d+)\)/.exec(section)?.[1],
    token: /chaos-answer-(\d+)/.exec(section)?.[1],
    answered: /Answer from human @/.test(section),
  }));
}

/** The pids above this one, parent first, up to init: which process (an app, a runner) started it. */
function ancestors() {
  const pids = [];
  for (let pid = process.ppid; pid > 1 && pids.length < 20;) {
    pids.push(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break;
    }
  }
  return pids;
}

const gates = gatesInTask(task);
const resumes = gates.filter((g) => g.answered).at(-1);
// The task must carry the issue itself too (the suite titles its issues "Chaos run N").
const titled = /^# Task: Chaos run \d+/m.test(task);
log("start", { gates, resumes: resumes?.gate, token: resumes?.token, titled, ancestors: ancestors() });
process.on("SIGTERM", () => {
  log("signal", { signal: "SIGTERM" });
  process.exit(143);
});
const work = (ms) => new Promise((resolve) => setTimeout(resolve, Number(ms)));

if (round === 0) {
  await work(round0Ms);
  // Asynchronously, so a SIGTERM meanwhile is still logged (a synchronous child would hold it back).
  const asked = await promisify(execFile)("escalate", ["ask", "--question", "Which store should the cache use?", "--option", "Alpha", "--option", "Beta"], {
    encoding: "utf8",
  }).catch((error) => ({ error }));
  if ("error" in asked) {
    log("failed", {
      reason: String(asked.error.stderr ?? asked.error.message)
        .trim()
        .slice(0, 300),
    });
    process.exit(1);
  }
  log("asked", { url: asked.stdout.trim() });
} else {
  await work(resumeMs);
}
log("end");
