import { resolve } from "node:path";
import { safeRedisUrl } from "../src/redis/safeUrl.js";
import { REPO, sandboxNote, startLocalStack } from "./localStack.js";
import { isContentCreating, type GitHubSimulator, type SimComment } from "./simulator/index.js";

/**
 * `npm run demo`: the whole loop on this machine. A private Redis, the GitHub simulator, the real
 * app and the sample agent in examples/; the agent asks, a maintainer answers, the agent is
 * re-spawned with the answer in the repository's checkout, leaves its edit there and finishes; the
 * app pushes the edit to the issue's branch and opens the pull request. Prints the issue as a person
 * would read it.
 */
const TIMEOUT_MS = 90_000;

function visible(body: string): string {
  return body.replace(/<!--[\s\S]*?-->/g, "").trim();
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

async function main(): Promise<number> {
  const stack = await startLocalStack({ appSlug: "escalation-demo", redisPrefix: `demo-${Date.now()}`, dataDir: resolve(process.env.DATA_DIR ?? "data") });
  const { sim, app, redisUrl, maintainer } = stack;
  console.log(sandboxNote(stack.sandbox));

  const printed = new Set<number>();
  const printNew = () => {
    for (const comment of sim.comments(REPO, 1)) {
      if (printed.has(comment.id) || comment.body.includes("Escalation status")) continue;
      printed.add(comment.id);
      print(comment);
    }
  };
  const print = (comment: SimComment) => {
    console.log(`\n💬 @${comment.user.login} commented at ${comment.created_at}:\n${indent(visible(comment.body))}`);
  };
  const waitFor = async (what: string, check: () => boolean) => {
    const deadline = Date.now() + TIMEOUT_MS;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`the demo timed out waiting for ${what}`);
      printNew();
      await new Promise((r) => setTimeout(r, 50));
    }
    printNew();
  };

  try {
    console.log(`escalation demo: GitHub simulator at ${sim.url}, app at ${app.url}, Redis at ${safeRedisUrl(redisUrl)}`);
    const issue = sim.createIssue(REPO, { title: "Add a cache for the lookups", body: "The lookups are slow; cache them.", author: "maintainer" });
    console.log(`\n📝 @maintainer opened ${REPO}#${issue.number}: "${issue.title}"`);
    const dispatch = sim.comment(REPO, issue.number, "maintainer", "/agent");
    await waitFor("the agent's question", () => sim.comments(REPO, 1).some((c) => c.body.includes("escalation:ask")));
    await waitFor("the awaiting-human label", () => sim.issue(REPO, 1).labels.includes("awaiting-human"));
    console.log(`\n🏷️  label "awaiting-human" added — the agent has exited, nothing is running.`);
    await new Promise((r) => setTimeout(r, 300));
    sim.comment(REPO, issue.number, "maintainer", "SQLite, keep it embedded");
    await waitFor("the re-spawned agent's result", () => sim.comments(REPO, 1).some((c) => c.body.includes("Done:")));
    await waitFor("the label's removal", () => !sim.issue(REPO, 1).labels.includes("awaiting-human"));
    console.log(`\n🏷️  label removed: the round that took the answer has ended.`);
    // The agent posts with the App's installation token too: its comments are its own writes, not feedback.
    const asked = sim.calls.findIndex((c) => c.actor === sim.botLogin && c.route === "POST /repos/{owner}/{repo}/issues/{issue_number}/comments");
    const writes = sim.calls
      .slice(asked + 1)
      .filter(
        (c) => c.actor === sim.botLogin && isContentCreating(c.method, c.route.slice(c.method.length + 1)) && !c.path.includes(`/comments/${dispatch.id}/`),
      )
      .filter((c) => c.route !== "POST /repos/{owner}/{repo}/issues/{issue_number}/comments");
    const statusComments = sim.comments(REPO, 1).filter((c) => c.body.includes("Escalation status")).length;
    // The acknowledgement saying how the reply was read: this reply was interpreted (an option with a note).
    const echoes = sim.comments(REPO, 1).filter((c) => c.user.login === sim.botLogin && c.body.startsWith("📝")).length;
    console.log(
      `\n✍️  the app's GitHub writes for this round trip: ${writes.length + statusComments + echoes} (${writes.map((c) => c.route.replace("/repos/{owner}/{repo}", "")).join(", ")}${echoes ? `, ${echoes} comment saying how the reply was read` : ""}); no reaction, no status comment on a round trip that went well.`,
    );
    const pull = await pullRequestOf(sim, maintainer.token, "escalation/issue-1");
    const [commit] = await sim.gitLog(REPO, "escalation/issue-1");
    console.log(
      `\n🌿 branch escalation/issue-1: "${commit?.subject}" by ${commit?.author}, with docs/cache.md:\n${indent((await sim.fileAt(REPO, "escalation/issue-1", "docs/cache.md"))?.trim() ?? "(missing)")}`,
    );
    console.log(
      `\n🔀 pull request #${pull.number} opened by @${pull.user.login}: "${pull.title}" (${pull.head.ref} → ${pull.base.ref}), "${pull.body.split("\n")[0]}"`,
    );
    const calls = sim.calls.filter((c) => c.actor !== "maintainer");
    console.log(`\n✅ loop complete: asked, answered, re-spawned, finished. GitHub API calls by the app and agent: ${calls.length}.`);
    return 0;
  } finally {
    await stack.close();
  }
}

/** The pull request from `branch`, once the app has opened it. */
async function pullRequestOf(
  sim: GitHubSimulator,
  token: string,
  branch: string,
): Promise<{ number: number; title: string; body: string; user: { login: string }; head: { ref: string }; base: { ref: string } }> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const response = await fetch(`${sim.apiUrl}/repos/${REPO}/pulls?state=all&head=${REPO.split("/")[0]}:${branch}`, {
      headers: { authorization: `token ${token}` },
    });
    const [pull] = (await response.json()) as Array<{
      number: number;
      title: string;
      body: string;
      user: { login: string };
      head: { ref: string };
      base: { ref: string };
    }>;
    if (pull) return pull;
    if (Date.now() > deadline) throw new Error(`the demo timed out waiting for the pull request from ${branch}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\n❌ demo failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
