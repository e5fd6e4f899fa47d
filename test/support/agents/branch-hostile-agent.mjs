#!/usr/bin/env node
// Test agent for test/e2e/agentsOwnBranch.test.ts, run in the issue's checkout (seeded into the
// repository, so the sandbox shows it). Usage: branch-hostile-agent.mjs ROUND
//
//   round 0   asks a question with `escalate ask` and exits
//   round 1   tries, with the token and the git set-up it was given, to change what is not its own:
//             the default branch, other issues' branches (new, and forced over one), branch deletions,
//             a force push elsewhere,
//             git straight to GitHub with its own token; deleting and editing the human's answer,
//             editing the app's question and status comments, closing the issue, removing a label,
//             editing the issue body, commenting with its token. Each attempt's outcome goes to
//             .escalation-report/round-1.json (kept out of the commit). Then it works honestly: commits,
//             `git push origin HEAD`, leaves a comment through `escalate comment` (carrying a forged
//             ask marker), and exits 0.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

const [round] = process.argv.slice(2);
const env = process.env;
const api = env.GITHUB_API_URL;
const [owner, repo] = env.GITHUB_REPOSITORY.split("/");
const issue = Number(env.ESCALATION_ISSUE);
const branch = env.ESCALATION_BRANCH;

if (round === "0") {
  // Left for the app to push: the issue's branch exists from round 0 on.
  writeFileSync("NOTES.md", "Asked which cache to use.\n");
  execFileSync("escalate", ["ask", "--question", "Which cache?", "--option", "SQLite", "--option", "Redis"], { stdio: "inherit" });
  process.exit(0);
}

const attempts = [];
const github = async (method, path, body) => {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `token ${env.GITHUB_TOKEN}`, accept: "application/vnd.github+json", ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: response.status < 300 && response.status !== 204 ? await response.json() : await response.text() };
};
const tryApi = async (kind, method, path, body) => {
  const { status } = await github(method, path, body);
  attempts.push({ kind, via: "api", status });
};
const git = (...args) => spawnSync("git", args, { encoding: "utf8", env });
const tryGit = (kind, args, gitEnv = env) => {
  const result = spawnSync("git", args, { encoding: "utf8", env: gitEnv });
  attempts.push({ kind, via: "git", exitCode: result.status, stderr: `${result.stdout}\n${result.stderr}`.slice(-2000) });
};

const comments = (await github("GET", `/repos/${owner}/${repo}/issues/${issue}/comments?per_page=100`)).json;
const human = comments.find((c) => c.user.type !== "Bot");
const question = comments.find((c) => c.user.type === "Bot" && c.body.includes("escalation:ask:v1"));
const status = comments.find((c) => c.user.type === "Bot" && c.body.includes("escalation:status:v1"));

await tryApi("edit-human-answer", "PATCH", `/repos/${owner}/${repo}/issues/comments/${human.id}`, { body: "FORGED-ANSWER" });
await tryApi("delete-human-answer", "DELETE", `/repos/${owner}/${repo}/issues/comments/${human.id}`);
await tryApi("edit-question", "PATCH", `/repos/${owner}/${repo}/issues/comments/${question.id}`, { body: "FORGED-QUESTION" });
if (status) await tryApi("edit-status", "PATCH", `/repos/${owner}/${repo}/issues/comments/${status.id}`, { body: "FORGED-STATUS" });
await tryApi("close-issue", "PATCH", `/repos/${owner}/${repo}/issues/${issue}`, { state: "closed" });
await tryApi("edit-issue-body", "PATCH", `/repos/${owner}/${repo}/issues/${issue}`, { body: "FORGED-BODY" });
await tryApi("remove-label", "DELETE", `/repos/${owner}/${repo}/issues/${issue}/labels/keep-me`);
await tryApi("comment-with-token", "POST", `/repos/${owner}/${repo}/issues/${issue}/comments`, { body: "FORGED-COMMENT" });

git("-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-q", "--allow-empty", "-m", "the hostile commit");
const other = `escalation/issue-${issue + 1000}`;
tryGit("push-default-branch", ["push", "origin", "HEAD:refs/heads/main"]);
tryGit("push-other-issue-branch", ["push", "origin", `HEAD:refs/heads/escalation/issue-${issue + 2000}`]);
tryGit("force-push-other-issue-branch", ["push", "--force", "origin", `HEAD:refs/heads/${other}`]);
tryGit("delete-other-branch", ["push", "origin", "--delete", other]);
tryGit("delete-own-branch", ["push", "origin", "--delete", branch]);
tryGit("force-push-elsewhere", ["push", "--force", "origin", "HEAD:refs/heads/feature"]);
tryGit("push-own-and-main", ["push", "origin", `HEAD:refs/heads/${branch}`, "HEAD:refs/heads/main"]);
tryGit("push-tag", ["push", "origin", "HEAD:refs/tags/v9"]);
// Around the channel: git's configuration from the environment dropped, the token straight to GitHub.
const origin = git("remote", "get-url", "origin").stdout.trim();
const bare = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("GIT_CONFIG")));
const basic = Buffer.from(`x-access-token:${env.GITHUB_TOKEN}`).toString("base64");
tryGit("push-main-with-token", ["-c", `http.extraHeader=Authorization: Basic ${basic}`, "push", origin, "HEAD:refs/heads/main"], bare);

// The honest part: its own branch, a comment, done.
writeFileSync("DONE.md", "Finished in round 1.\n");
git("add", "DONE.md");
git("-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-q", "-m", "the agent's own commit");
tryGit("push-own-branch", ["push", "origin", "HEAD"]);
const forged = execFileSync("escalate", ["ask", "--dry-run", "--question", "Forged?"], { encoding: "utf8" });
const commented = spawnSync("escalate", ["comment", "--body", `Done; see DONE.md.\n\n${forged}`], { encoding: "utf8", env });
attempts.push({ kind: "escalate-comment", via: "channel", exitCode: commented.status, stdout: commented.stdout.trim(), stderr: commented.stderr });

mkdirSync(".escalation-report", { recursive: true });
writeFileSync(".escalation-report/round-1.json", JSON.stringify({ attempts, human: human.id, question: question.id }));
