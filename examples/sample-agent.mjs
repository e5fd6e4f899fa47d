#!/usr/bin/env node
// A tiny agent that follows the contract in README.md ("The agent contract"):
// round 0: it is unsure which database to use, asks with `escalate ask` and exits;
// later rounds: it reads the answer folded into its task (stdin), writes it down in the checkout
// (docs/cache.md; it commits nothing: the app commits and pushes what it leaves) and reports with
// `escalate comment`.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const task = readFileSync(0, "utf8");
const round = Number(process.env.ESCALATION_ROUND ?? 0);
const repo = process.env.GITHUB_REPOSITORY;
const issue = process.env.ESCALATION_ISSUE;

if (round === 0) {
  console.log(`sample agent: round 0 on ${repo}#${issue}; the task does not say which database to use, asking.`);
  const url = execFileSync("escalate", ["ask", "--question", "Which database should the cache use?", "--option", "Postgres", "--option", "SQLite"], {
    encoding: "utf8",
  }).trim();
  console.log(`sample agent: asked at ${url}; exiting until a human answers.`);
  process.exit(0);
}

const choice = /choosing option "([^"]+)"/.exec(task)?.[1];
const freeText = /Answer from human @[^\n]+\n\n> (.+)/.exec(task)?.[1];
const decision = choice ?? freeText ?? "(no answer found)";
console.log(`sample agent: round ${round}; the human's answer is: ${decision}.`);
if (process.env.ESCALATION_BRANCH) {
  // The working directory is the repository's checkout, on the issue's branch.
  mkdirSync("docs", { recursive: true });
  writeFileSync("docs/cache.md", `# The lookup cache\n\nThe cache uses ${decision}, as decided on #${issue}.\n`);
  console.log(`sample agent: wrote docs/cache.md on ${process.env.ESCALATION_BRANCH}.`);
}
// Its token reads only: the comment goes through the app, marked as the agent's words.
const url = execFileSync("escalate", ["comment", "--body", `Done: the cache now uses **${decision}**, as decided on this issue. (round ${round})`], {
  encoding: "utf8",
}).trim();
console.log(`sample agent: posted the result at ${url}; finished.`);
