#!/usr/bin/env node
// Test agent for the workspace (test/e2e/workspace.test.ts): records where it runs and what the
// checkout holds as JSON in OUT_DIR, then works like a coding agent.
// Usage: workspace-agent.mjs OUT_DIR ROUND   (writes OUT_DIR/round-ROUND-OWNER-REPO-ISSUE.json)
//
//   round 0   edits src/app.ts, adds NOTES.md, asks a question and exits 0 without committing
//   "[sleep]" in the title: writes HALFWAY.md, then runs for a minute (for /stop)
//   round 1+  commits DONE.md ("Finished in round N") and pushes it with `git push origin HEAD`, then finishes
//   "[open-pr]" in the title: round 0 commits, pushes and opens its own pull request with its
//             GITHUB_TOKEN (recording GitHub's status as openedPr), then finishes
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [outDir, round] = process.argv.slice(2);
const task = readFileSync(0, "utf8");
const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
/** Outside a checkout (the workspace off) git fails: recorded as null. */
const tryGit = (...args) => {
  try {
    return git(...args);
  } catch {
    return null;
  }
};
const file = (path) => (existsSync(path) ? readFileSync(path, "utf8") : null);
mkdirSync(outDir, { recursive: true });
const seen = {
  cwd: process.cwd(),
  env: process.env,
  task,
  branch: tryGit("rev-parse", "--abbrev-ref", "HEAD"),
  origin: tryGit("remote", "get-url", "origin"),
  app: file("src/app.ts"),
  notes: file("NOTES.md"),
  status: tryGit("status", "--porcelain"),
};
const record = join(outDir, `round-${round}-${process.env.GITHUB_REPOSITORY.replace("/", "-")}-${process.env.ESCALATION_ISSUE}.json`);

if (/^# Task: .*\[sleep\]/m.test(task)) {
  // Edits, records, then runs until stopped (for /stop): its edit must still reach the branch.
  writeFileSync("HALFWAY.md", "stopped halfway\n");
  writeFileSync(record, JSON.stringify(seen));
  await new Promise((resolve) => setTimeout(resolve, 60_000));
} else if (/^# Task: .*\[open-pr\]/m.test(task)) {
  writeFileSync("DONE.md", "Opened by the agent.\n");
  git("add", "DONE.md");
  git("commit", "-qm", "the agent's own commit");
  git("push", "-q", "origin", "HEAD");
  const response = await fetch(`${process.env.GITHUB_API_URL}/repos/${process.env.GITHUB_REPOSITORY}/pulls`, {
    method: "POST",
    headers: { authorization: `token ${process.env.GITHUB_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      title: "The agent's own pull request",
      head: process.env.ESCALATION_BRANCH,
      base: process.env.ESCALATION_BASE,
      body: `Closes #${process.env.ESCALATION_ISSUE}`,
    }),
  });
  seen.openedPr = response.status;
} else if (round === "0") {
  mkdirSync("src", { recursive: true });
  writeFileSync("src/app.ts", `${seen.app ?? ""}export const cache = "sqlite";\n`);
  writeFileSync("NOTES.md", "Asked which cache to use.\n");
  execFileSync("escalate", ["ask", "--question", "Which cache should the lookups use?", "--option", "SQLite", "--option", "Redis"], { stdio: "inherit" });
} else {
  writeFileSync("DONE.md", `Finished in round ${round}.\n`);
  git("add", "DONE.md");
  git("commit", "-qm", "the agent's own commit");
  seen.pushed = execFileSync("git", ["push", "origin", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}
writeFileSync(record, JSON.stringify(seen));
