import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import type { RunningApp } from "../../src/app/startApp.js";
import { loadConfig } from "../../src/config/env.js";
import type { AppConfig } from "../../src/config/appConfig.js";
import { GitHubSimulator, type SimComment } from "../../tools/simulator/index.js";
import { REDACT_PATHS } from "../../src/logging.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { REPO, WEBHOOK_SECRET, quiet, startOnFreePort, waitFor, waitOut } from "../support/harness.js";
import { deliveryOutcomes } from "../../src/queue/inboundQueue.js";

export { REPO, WEBHOOK_SECRET, waitFor };

export const AGENT = resolve("test/support/agents/security-agent.mjs");

/** What one run of test/support/agents/security-agent.mjs was given. */
export interface Recorded {
  startedAt: number;
  pid: number;
  mode: string;
  argv: string[];
  env: Record<string, string>;
  task: string;
  cwd: string;
}

/**
 * The real app (Probot, queues, workers, Redis) against the GitHub simulator, like
 * test/support/harness.ts, but logging at trace level through the production redaction into
 * `logs`, so a test can read every line the app wrote.
 */
export class SecureLoop {
  private constructor(
    /** Every line the app logged, JSON, in order. */
    readonly logs: string[],
    readonly sim: GitHubSimulator,
    readonly out: string,
    readonly config: AppConfig & { redisUrl: string },
    public app: RunningApp,
    /** The App's installation on REPO. */
    readonly installationId: number,
  ) {}

  /** `out` is where the agent records its runs (a fresh directory by default). */
  static async start(options: { mode?: string; env?: Record<string, string>; command?: string[]; out?: string } = {}): Promise<SecureLoop> {
    const sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    const { installation_id: installationId } = sim.addRepo(REPO);
    sim.addRepo("acme/gadgets");
    sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
    sim.setPermission("acme/gadgets", "maintainer", "write");
    sim.addUser("admin");
    sim.setPermission(REPO, "admin", "admin");
    sim.addUser("reader");
    sim.setPermission(REPO, "reader", "read");
    sim.addUser("stranger");
    sim.addUser("renovate[bot]", { type: "Bot" });
    const out = options.out ?? outDir();
    const config = loadConfig({
      ...sim.appEnv(),
      PORT: String(await freePort()),
      HOST: "127.0.0.1",
      REDIS_URL: process.env.REDIS_URL,
      REDIS_PREFIX: `s${randomBytes(5).toString("hex")}`,
      SHUTDOWN_GRACE: "2s",
      AGENT_KILL_GRACE: "1s",
      REPO_CONFIG_CACHE_TTL: "1s",
      AGENT_WORKSPACE: "off",
      // The agent runs from this project's directory, which the sandbox does not show.
      AGENT_SANDBOX: "none",
      AGENT_COMMAND: JSON.stringify(options.command ?? [process.execPath, AGENT, out, "{round}", options.mode ?? "done"]),
      ...options.env,
    });
    const full = { ...config, redisUrl: config.redisUrl! };
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    });
    const booted = Date.now();
    const app = await startOnFreePort({
      config: full,
      log: pino({ level: "trace", redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, sink),
      octokit: { throttle: false, retry: false },
    });
    sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
    await waitFor("the start-up reconciliation", async () => ((await app.services.namespaceMarks.lastReconcile()) ?? 0) >= booted);
    return new SecureLoop(logs, sim, out, full, app, installationId);
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.sim.stop();
  }

  /** Log lines as parsed JSON objects. */
  entries(): Array<Record<string, unknown>> {
    return this.logs.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  /** Waits until the app has handled the comment's delivery; returns what it made of it ("ignored: …", "answer recorded", …). */
  async handled(commentId: number, timeoutMs = 20_000): Promise<string> {
    return waitFor(
      `the app's handling of comment ${commentId}`,
      async () => {
        const outcomes = await deliveryOutcomes(this.app.services.queues.inbound);
        return outcomes.find((o) => o.kind === "comment" && o.comment === commentId)?.outcome;
      },
      timeoutMs,
    );
  }

  /** Waits until the app dropped `sender`'s delivery at the webhook boundary (a bot's comment without a marker). */
  async dropped(sender: string, timeoutMs = 20_000): Promise<void> {
    await waitFor(
      `a dropped delivery from ${sender}`,
      () => this.entries().some((e) => e.msg === "ignored webhook delivery" && e.sender === sender),
      timeoutMs,
    );
  }

  /** Agent runs on `issue` (all rounds, or one), in start order. */
  runs(issue: number, round?: number, repo = REPO): Recorded[] {
    return readdirSync(this.out)
      .filter((f) => f.startsWith(round === undefined ? "round-" : `round-${round}-`))
      .map((f) => JSON.parse(readFileSync(join(this.out, f), "utf8")) as Recorded)
      .filter((r) => r.env.ESCALATION_ISSUE === String(issue) && r.env.GITHUB_REPOSITORY === repo)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  run(issue: number, round: number, repo = REPO): Promise<Recorded> {
    return waitFor(`round ${round} of #${issue}`, () => this.runs(issue, round, repo)[0]);
  }

  comments(issue: number, repo = REPO): SimComment[] {
    return this.sim.comments(repo, issue);
  }

  /** The app's comments on the issue. */
  appComments(issue: number, repo = REPO): SimComment[] {
    return this.comments(issue, repo).filter((c) => c.user.login === this.sim.botLogin);
  }

  statusBody(issue: number, repo = REPO): string {
    return this.appComments(issue, repo).find((c) => c.body.startsWith("### 🤖 Escalation status"))?.body ?? "";
  }

  /** Opens an issue and dispatches the agent with `/agent`; waits for its ask when `ask` is set. */
  async dispatch(title: string, opts: { body?: string; author?: string; ask?: boolean; repo?: string } = {}): Promise<{ issue: number; askId?: number }> {
    const repo = opts.repo ?? REPO;
    const issue = this.sim.createIssue(repo, { title, body: opts.body ?? `Please work on: ${title}.`, author: opts.author ?? "maintainer" }).number;
    this.sim.comment(repo, issue, "maintainer", "/agent");
    if (!opts.ask) return { issue };
    const ask = await waitFor("the agent's ask", () => this.appComments(issue, repo).find((c) => safeAsk(c.body) !== undefined));
    await waitFor("the ask's gate", async () => (await this.app.services.gates.lastGate({ repo, issue }))?.id === String(ask.id));
    return { issue, askId: ask.id };
  }

  /** Writes `.github/escalation.yml` and waits until the app's cached settings (REPO_CONFIG_CACHE_TTL, 1 s here) have expired. */
  async configure(yaml: string, repo = REPO): Promise<void> {
    this.sim.setFile(repo, ".github/escalation.yml", yaml);
    await waitOut(1100);
  }

  /** Waits until the app has done everything it was given (see quiet in test/support/harness.ts): before asserting that something did not happen. */
  quiet(): Promise<void> {
    return quiet(this);
  }
}

/** A fresh directory for an agent's records. */
export function outDir(): string {
  return mkdtempSync(join(tmpdir(), "esc-security-"));
}

function safeAsk(body: string) {
  try {
    return parseAskComment(body);
  } catch {
    return undefined;
  }
}
