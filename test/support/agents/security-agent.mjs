#!/usr/bin/env node
// Test agent for test/security: records what it was given (argv, env, stdin task, cwd) as JSON in the
// directory named by its first argument, then behaves according to its mode.
// Usage: security-agent.mjs OUT_DIR ROUND [MODE]
// An issue title containing "[mode:NAME]" overrides MODE. Modes:
//   ask     round 0: asks a free-text question ("Which database should the cache use?"); later rounds succeed
//   done    succeeds at once
//   probe   tries its GITHUB_TOKEN on its own issue (a read, a comment) and on another repository (OTHER_REPO in the task
//           title as "[other:owner/name]"), records the HTTP statuses in probe-PID.json, succeeds
//   leak    prints its GITHUB_TOKEN (plain, as a bearer header, inside JSON) and exits 1
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [outDir, round, argvMode = "done"] = process.argv.slice(2);
const task = readFileSync(0, "utf8");
const mode = /^# Task: .*\[mode:([a-z0-9-]+)\]/m.exec(task)?.[1] ?? argvMode;
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, `round-${round}-${process.pid}.json`),
  JSON.stringify({ startedAt: Date.now(), pid: process.pid, mode, argv: process.argv.slice(2), env: process.env, task, cwd: process.cwd() }),
);

const token = process.env.GITHUB_TOKEN ?? "";
const api = process.env.GITHUB_API_URL;

async function post(path, body) {
  const response = await fetch(`${api}${path}`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json", accept: "application/vnd.github+json" },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

switch (mode) {
  case "ask":
    if (round === "0") execFileSync("escalate", ["ask", "--question", "Which database should the cache use?"], { stdio: "inherit" });
    break;
  case "done":
    break;
  case "probe": {
    const other = /\[other:([^\]]+)\]/.exec(task)?.[1];
    const read = await fetch(`${process.env.GITHUB_API_URL}/repos/${process.env.GITHUB_REPOSITORY}/issues/${process.env.ESCALATION_ISSUE}`, {
      headers: { authorization: `token ${process.env.GITHUB_TOKEN}` },
    });
    const ownRead = read.status;
    const own = await post(`/repos/${process.env.GITHUB_REPOSITORY}/issues/${process.env.ESCALATION_ISSUE}/comments`, { body: "probe: own issue" });
    const foreignComment = other ? await post(`/repos/${other}/issues/1/comments`, { body: "probe: another repository" }) : undefined;
    const foreignIssue = other ? await post(`/repos/${other}/issues`, { title: "probe: another repository" }) : undefined;
    writeFileSync(join(outDir, `probe-${process.pid}.json`), JSON.stringify({ ownRead, own, foreignComment, foreignIssue }));
    break;
  }
  case "leak":
    console.log(`my token is ${token}`);
    console.error(`Authorization: Bearer ${token}`);
    console.error(JSON.stringify({ token }));
    process.exit(1);
    break;
  default:
    console.error(`security-agent: unknown mode ${mode}`);
    process.exit(2);
}
