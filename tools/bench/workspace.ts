import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startApp } from "../../src/app/startApp.js";
import { loadConfig } from "../../src/config/env.js";
import { projectRoot } from "../../src/config/projectRoot.js";
import { createLogger } from "../../src/logging.js";
import { freePort, startPrivateRedis } from "../../src/redis/privateRedis.js";
import { GitHubSimulator } from "../simulator/index.js";
import { gitAuthEnv } from "../../src/workspace/gitCredentials.js";
import { prepareWorkspace, type PrepareInput } from "../../src/workspace/prepareWorkspace.js";
import { distribution } from "./stats.js";
import { fmt, markdownTable } from "./table.js";

/**
 * The last part of `npm run bench` (alone: `npm run bench:workspace`, workspaceMain.ts): what the agent's checkout costs before a spawn, on a repository of
 * 5,000 files and 200 commits served by the simulator's git server: the first round of an issue on
 * a cold cache, a first round on a warm cache (another issue of the same repository), and a later
 * round of the same issue with nothing new and with one new commit on the base. A warm round's
 * figure is what the workspace adds to "reply → agent started" (the token and the repository's
 * clone URL are cached in memory); then that figure through the real app, workspace on and off.
 */
const REPO = "bench/big";
const OFF_REPO = "bench/plain";
const BOT = { name: "escalation[bot]", email: "escalation[bot]@users.noreply.github.com" };
const run = promisify(execFile);

async function git(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("git", args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Bench",
      GIT_AUTHOR_EMAIL: "b@example.invalid",
      GIT_COMMITTER_NAME: "Bench",
      GIT_COMMITTER_EMAIL: "b@example.invalid",
      ...env,
    },
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

async function token(sim: GitHubSimulator, installationId: number): Promise<string> {
  const response = await fetch(`${sim.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${sim.appJwt()}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: [REPO.split("/")[1]], permissions: { contents: "write" } }),
  });
  return ((await response.json()) as { token: string }).token;
}

/** A history of `commits` commits over `files` files (40 files changed per commit), pushed to the simulator's `main`. */
async function seed(sim: GitHubSimulator, files: number, commits: number, accessToken: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "bench-ws-seed-"));
  try {
    await git(["init", "-q", "-b", "main"], work);
    for (let i = 0; i < files; i++) {
      const dir = join(work, "src", `m${i % 50}`);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `f${i}.ts`), `export const value${i} = ${i};\n// ${"x".repeat(200)}\n`);
    }
    await git(["add", "-A"], work);
    await git(["commit", "-qm", "commit 1"], work);
    for (let c = 2; c <= commits; c++) {
      for (let k = 0; k < 40; k++) {
        const i = (c * 40 + k) % files;
        await writeFile(join(work, "src", `m${i % 50}`, `f${i}.ts`), `export const value${i} = ${i * c};\n// ${"y".repeat(200)}\n`);
      }
      await git(["commit", "-qam", `commit ${c}`], work);
    }
    const url = `${sim.url}/${REPO}.git`;
    // Over the repository's first commit: the history is the bench's own.
    await git(["push", "-q", "--force", url, "main"], work, gitAuthEnv(url, accessToken));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Reply → agent started (webhook arrival → the agent's process started, the app's own
 * `agent.started` figure) through the real app, side by side on one app: `on` (the big repository,
 * workspace on) and `off` (a repository whose `.github/escalation.yml` turns it off). Each issue:
 * `/agent`, the sample agent asks, a maintainer answers; round 1's start is measured.
 */
/** Per side: reply → agent started (ms) and the REST calls of each issue's whole round trip (both rounds, the app's and the agent's). */
interface LoopFigures {
  on: number[];
  off: number[];
  calls: { on: number[]; off: number[] };
}

async function replyToSpawn(sim: GitHubSimulator, issues: number): Promise<LoopFigures> {
  const redis = await startPrivateRedis();
  const root = await mkdtemp(join(tmpdir(), "bench-ws-loop-"));
  sim.addUser("maintainer");
  sim.setPermission(REPO, "maintainer", "write");
  sim.addRepo(OFF_REPO);
  sim.setPermission(OFF_REPO, "maintainer", "write");
  sim.setFile(OFF_REPO, ".github/escalation.yml", "workspace:\n  enabled: false\n");
  const config = loadConfig({
    ...sim.appEnv(),
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: "127.0.0.1",
    PORT: String(await freePort()),
    REDIS_URL: redis.url,
    REDIS_PREFIX: "bench-ws",
    // The agent runs from this project's directory, which the sandbox does not show.
    AGENT_SANDBOX: "none",
    AGENT_COMMAND: JSON.stringify([process.execPath, resolve(projectRoot, "examples/sample-agent.mjs")]),
    WORKSPACE_ROOT: root,
    LOG_LEVEL: "warn",
    GITHUB_WRITES_PER_MINUTE: "1000",
    GITHUB_WRITES_PER_HOUR: "100000",
  });
  const app = await startApp({ config: { ...config, redisUrl: redis.url }, log: await createLogger("warn"), octokit: { throttle: false, retry: true } });
  sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
  const figures: LoopFigures = { on: [], off: [], calls: { on: [], off: [] } };
  const exited = (repo: string, issue: number, round: number) =>
    new Promise<void>((resolvePromise) => {
      const listener = (e: { repo: string; issue: number; round: number }) => {
        if (e.repo !== repo || e.issue !== issue || e.round !== round) return;
        app.services.events.off("agent.exited", listener);
        resolvePromise();
      };
      app.services.events.on("agent.exited", listener);
    });
  /** Until the app's writes for the round are out: they are part of its round trip. */
  const settled = async () => {
    const deadline = Date.now() + 120_000;
    while ((await app.services.queues.feedback.unfinished()) > 0) {
      if (Date.now() > deadline) throw new Error("the app's feedback did not drain");
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const started = (repo: string, issue: number, round: number) =>
    new Promise<number>((resolvePromise) => {
      const listener = (e: { repo: string; issue: number; round: number; replyToSpawnMs: number }) => {
        if (e.repo !== repo || e.issue !== issue || e.round !== round) return;
        app.services.events.off("agent.started", listener);
        resolvePromise(e.replyToSpawnMs);
      };
      app.services.events.on("agent.started", listener);
    });
  const asked = async (repo: string, issue: number) => {
    const deadline = Date.now() + 120_000;
    while (!sim.issue(repo, issue).labels.includes("awaiting-human")) {
      if (Date.now() > deadline) throw new Error(`no question on ${repo}#${issue}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    for (let i = 0; i < issues; i++) {
      for (const [repo, into, calls] of [
        [REPO, figures.on, figures.calls.on],
        [OFF_REPO, figures.off, figures.calls.off],
      ] as const) {
        const from = sim.calls.length;
        const issue = sim.createIssue(repo, { title: `Bench ${i}`, body: "x", author: "maintainer" }).number;
        sim.comment(repo, issue, "maintainer", "/agent");
        await asked(repo, issue);
        const round1 = started(repo, issue, 1);
        const over = exited(repo, issue, 1);
        sim.comment(repo, issue, "maintainer", "SQLite");
        into.push(await round1);
        await over;
        await settled();
        calls.push(sim.calls.length - from);
        console.error(`  ${repo}#${issue}: reply → agent started ${into.at(-1)} ms, ${calls.at(-1)} REST calls in the round trip`);
      }
    }
    return figures;
  } finally {
    await app.close();
    await redis.stop();
    await rm(root, { recursive: true, force: true });
  }
}

export interface WorkspaceBenchSizes {
  files: number;
  commits: number;
  samples: number;
  issues: number;
}

/** The workspace's measurement: preparation alone, then reply → agent started with it on and off, side by side. Prints Markdown tables. */
export async function benchWorkspace({ files, commits, samples, issues }: WorkspaceBenchSizes): Promise<void> {
  const sim = await GitHubSimulator.start({ webhookSecret: "bench" });
  const root = await mkdtemp(join(tmpdir(), "bench-ws-root-"));
  try {
    const { installation_id: installationId } = sim.addRepo(REPO);
    await sim.seedGit(REPO, { ".keep": "" });
    const accessToken = await token(sim, installationId);
    console.error(`seeding ${REPO}: ${files} files, ${commits} commits`);
    await seed(sim, files, commits, accessToken);
    const input = (issue: number, round: number, workspaces = root): PrepareInput => ({
      root: workspaces,
      repo: REPO,
      issue,
      round,
      cloneUrl: `${sim.url}/${REPO}.git`,
      base: "main",
      branch: `escalation/issue-${issue}`,
      token: accessToken,
      identity: BOT,
      limits: { maxBytes: 100 * 2 ** 20, maxFiles: 10_000 },
    });
    const cold: number[] = [];
    const warmFirst: number[] = [];
    const warmSame: number[] = [];
    const warmChanged: number[] = [];
    for (let s = 0; s < samples; s++) {
      console.error(`sample ${s + 1} of ${samples}`);
      const fresh = await mkdtemp(join(tmpdir(), "bench-ws-cold-"));
      cold.push(await timed(() => prepareWorkspace(input(1, 0, fresh))));
      await rm(fresh, { recursive: true, force: true });
      warmFirst.push(await timed(() => prepareWorkspace(input(100 + s, 0))));
      warmSame.push(await timed(() => prepareWorkspace(input(100 + s, 1))));
      await sim.pushToBranch(REPO, "main", { [`src/new-${s}.ts`]: `export const added = ${s};\n` }, `a human's commit ${s}`);
      warmChanged.push(await timed(() => prepareWorkspace(input(100 + s, 2))));
    }
    const row = (what: string, ms: number[]) => {
      const d = distribution(ms);
      return [what, `${fmt(d.p50)} ms`, `${fmt(Math.min(...ms))}–${fmt(Math.max(...ms))} ms`];
    };
    console.log(
      markdownTable(
        ["Workspace preparation before a spawn (" + `${files} files, ${commits} commits, ${samples} samples` + ")", "p50", "range"],
        [
          row("Round 0 of an issue, cold cache (the whole history fetched, files checked out)", cold),
          row("Round 0 of another issue, warm cache (fetch of nothing new; checkout shares the cache's objects)", warmFirst),
          row("Round 1 of the same issue, nothing new (what a warm round adds to reply → agent started)", warmSame),
          row("Round 2 of the same issue, one new commit on the base", warmChanged),
        ],
      ),
    );
    console.error(`reply → agent started through the app, ${issues} issues per side`);
    const loop = await replyToSpawn(sim, issues);
    console.log(
      `\n${markdownTable(
        [`Reply → agent process started through the app (webhook arrival → spawn, ${issues} round trips each)`, "p50", "range"],
        [
          row(`Workspace on (${files} files, ${commits} commits; a warm round of the issue)`, loop.on),
          row("Workspace off (a fresh empty directory)", loop.off),
        ],
      )}`,
    );
    const count = (what: string, calls: number[]) => {
      const d = distribution(calls);
      return [what, fmt(d.p50), `${Math.min(...calls)}–${Math.max(...calls)}`];
    };
    console.log(
      `\n${markdownTable(
        [`GitHub REST calls per issue (dispatch, ask, answer, the resumed round's end; the app's and the agent's), ${issues} issues each`, "p50", "range"],
        [count("Workspace on", loop.calls.on), count("Workspace off", loop.calls.off)],
      )}`,
    );
  } finally {
    await sim.stop();
    await rm(root, { recursive: true, force: true });
  }
}
