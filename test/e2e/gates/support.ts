import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Ask } from "../../../src/domain.js";
import { parseAskComment } from "../../../src/protocol/ask.js";
import type { SimComment } from "../../../tools/simulator/index.js";
import { REPO, quiet, startLoop, waitFor, waitOut, type Loop } from "../../support/harness.js";

export { REPO, afterSecondOf, waitFor } from "../../support/harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");

/** What one run of test/support/agents/recording-agent.mjs was given. */
export interface Recorded {
  startedAt: number;
  pid: number;
  mode: string;
  argv: string[];
  env: Record<string, string>;
  task: string;
}

function askOf(comment: SimComment): Ask | undefined {
  try {
    return parseAskComment(comment.body);
  } catch {
    return undefined;
  }
}

/** The app's one status comment per issue (a `/status` reply is an ordinary reply). */
const isStatusComment = (comment: SimComment) => comment.body.startsWith("### 🤖 Escalation status");

/**
 * One real loop (simulator, app, queues, workers, Redis) whose AGENT_COMMAND runs the recording
 * agent in `mode`; an issue titled "… [mode:NAME]" runs that mode instead.
 */
export class Gates {
  private constructor(
    readonly loop: Loop,
    readonly out: string,
    /** How long each of the waits below may take (a round, a reply, a status line): see start. */
    readonly stepMs: number,
  ) {}

  /**
   * `stepMs` (15 s by default) bounds each wait for a step; a file whose tests are allowed a minute
   * gives its steps more, so a machine busy with other work slows it down without failing it.
   */
  static async start(mode: string, env: Record<string, string> = {}, options: { stepMs?: number } = {}): Promise<Gates> {
    const out = mkdtempSync(join(tmpdir(), "esc-gates-"));
    const loop = await startLoop({
      AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", mode]),
      // The app reads the repository's settings at start-up already; a short cache lets a test change them.
      REPO_CONFIG_CACHE_TTL: "1s",
      ...env,
    });
    return new Gates(loop, out, options.stepMs ?? 15_000);
  }

  /** Writes `.github/escalation.yml` and waits until the app's cached settings (REPO_CONFIG_CACHE_TTL, 1 s here) have expired. */
  async configure(yaml: string, repo = REPO): Promise<void> {
    this.sim.setFile(repo, ".github/escalation.yml", yaml);
    await waitOut(1100);
  }

  /** Waits until the loop has done everything it was given (see quiet in test/support/harness.ts): before asserting that something did not happen. */
  quiet(options?: { timers?: boolean }): Promise<void> {
    return quiet(this.loop, options);
  }

  get sim() {
    return this.loop.sim;
  }

  close(): Promise<void> {
    return this.loop.close();
  }

  /** Agent runs on `issue` (all rounds, or one), in start order. */
  runs(issue: number, round?: number, repo = REPO): Recorded[] {
    return readdirSync(this.out)
      .filter((f) => f.startsWith(round === undefined ? "round-" : `round-${round}-`))
      .map((f) => JSON.parse(readFileSync(join(this.out, f), "utf8")) as Recorded)
      .filter((r) => r.env.ESCALATION_ISSUE === String(issue) && r.env.GITHUB_REPOSITORY === repo)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Waits for the agent's run of `round` on `issue`. */
  run(issue: number, round: number, repo = REPO): Promise<Recorded> {
    return waitFor(`round ${round} of #${issue}`, () => this.runs(issue, round, repo)[0], this.stepMs);
  }

  /** When the agent of `pid` received `signal`, if it did. */
  signalled(pid: number, signal: string): number | undefined {
    const file = readdirSync(this.out).find((f) => f === `signal-${pid}-${signal}`);
    return file ? Number(readFileSync(join(this.out, file), "utf8")) : undefined;
  }

  comments(issue: number, repo = REPO): SimComment[] {
    return this.sim.comments(repo, issue);
  }

  comment(issue: number, author: string, body: string, repo = REPO): SimComment {
    return this.sim.comment(repo, issue, author, body);
  }

  /** The app's comments that are neither asks nor the status comment: its replies and notices. */
  replies(issue: number, repo = REPO): SimComment[] {
    return this.comments(issue, repo).filter((c) => c.user.login === this.sim.botLogin && !askOf(c) && !isStatusComment(c));
  }

  /** Ask comments on the issue (the agent's and the app's own), with their parsed asks. */
  asks(issue: number, repo = REPO): Array<{ comment: SimComment; ask: Ask }> {
    return this.comments(issue, repo).flatMap((comment) => {
      const ask = askOf(comment);
      return ask ? [{ comment, ask }] : [];
    });
  }

  statusBody(issue: number, repo = REPO): string {
    return this.comments(issue, repo).find((c) => c.user.login === this.sim.botLogin && isStatusComment(c))?.body ?? "";
  }

  /** Waits until the status comment has a line matching `pattern`. */
  statusLine(issue: number, pattern: RegExp | string, repo = REPO): Promise<string> {
    const matches = (line: string) => (typeof pattern === "string" ? line.includes(pattern) : pattern.test(line));
    return waitFor(`status line ${String(pattern)} on #${issue}`, () => this.statusBody(issue, repo).split("\n").find(matches), this.stepMs);
  }

  /** Waits for the app's reply containing `text`. */
  reply(issue: number, text: string | RegExp, repo = REPO): Promise<SimComment> {
    const matches = (body: string) => (typeof text === "string" ? body.includes(text) : text.test(body));
    return waitFor(`a reply ${String(text)} on #${issue}`, () => this.replies(issue, repo).find((c) => matches(c.body)), this.stepMs);
  }

  labels(issue: number, repo = REPO): string[] {
    return this.sim.issue(repo, issue).labels;
  }

  reactions(commentId: number, issue: number, repo = REPO): string[] {
    return (this.comments(issue, repo).find((c) => c.id === commentId)?.reactions ?? []).map((r) => `${r.content}:${r.user}`);
  }

  /** Waits until the app reacted with `content` on the comment. */
  reacted(commentId: number, issue: number, content: string, repo = REPO): Promise<true> {
    return waitFor(
      `${content} on comment ${commentId}`,
      () => this.reactions(commentId, issue, repo).includes(`${content}:${this.sim.botLogin}`) || undefined,
      this.stepMs,
    );
  }

  /**
   * Waits until the agent resumed with the answer of `commentId` (a round claimed its gate): what 🚀
   * on the reply used to show. GitHub now shows it by the label coming off when that round ends.
   */
  resumedWith(commentId: number, issue: number, repo = REPO): Promise<true> {
    return waitFor(
      `a resume with the answer of comment ${commentId}`,
      async () => {
        const gates = await this.loop.app.services.gates.issueGates({ repo, issue });
        return gates.some((g) => g.answerCommentId === commentId && (g.state === "resuming" || g.state === "resumed")) || undefined;
      },
      this.stepMs,
    );
  }

  /** Sends a REST request with an installation token, as an agent holding the App's token would; the response's status. */
  async asTheApp(method: "PATCH" | "DELETE", path: string, body?: unknown): Promise<number> {
    const sim = this.sim;
    const installations = (await (await fetch(`${sim.apiUrl}/app/installations`, { headers: { authorization: `Bearer ${sim.appJwt()}` } })).json()) as Array<{
      id: number;
    }>;
    const issued = await fetch(`${sim.apiUrl}/app/installations/${installations[0]!.id}/access_tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${sim.appJwt()}` },
    });
    const { token } = (await issued.json()) as { token: string };
    const response = await fetch(`${sim.apiUrl}${path}`, {
      method,
      headers: { authorization: `token ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return response.status;
  }

  /** Opens an issue and dispatches the agent with `/agent`; `mode` goes in the title. */
  dispatch(title: string, opts: { mode?: string; assignees?: string[]; repo?: string } = {}): number {
    const repo = opts.repo ?? REPO;
    const issue = this.sim.createIssue(repo, {
      title: opts.mode ? `${title} [mode:${opts.mode}]` : title,
      body: `Please work on: ${title}.`,
      author: "maintainer",
      assignees: opts.assignees,
    });
    this.sim.comment(repo, issue.number, "maintainer", "/agent");
    return issue.number;
  }

  /** Waits for the newest ask on the issue to be registered as a gate (in Redis, and the label: its one write). */
  async gate(issue: number, opts: { count?: number; label?: string; repo?: string } = {}): Promise<{ comment: SimComment; ask: Ask }> {
    const repo = opts.repo ?? REPO;
    const count = opts.count ?? 1;
    const found = await waitFor(`ask #${count} on #${issue}`, () => this.asks(issue, repo)[count - 1], this.stepMs);
    await waitFor(`gate ${found.comment.id} recorded`, () => this.loop.app.services.gates.getGate(String(found.comment.id)), this.stepMs);
    await waitFor(
      `the ${opts.label ?? "awaiting-human"} label on #${issue}`,
      () => this.labels(issue, repo).includes(opts.label ?? "awaiting-human"),
      this.stepMs,
    );
    return found;
  }

  /** Dispatches and waits for the agent's question. */
  async asked(title: string, opts: { mode?: string; assignees?: string[] } = {}): Promise<{ issue: number; comment: SimComment; ask: Ask }> {
    const issue = this.dispatch(title, opts);
    return { issue, ...(await this.gate(issue)) };
  }
}

/** True while a process with this pid exists (a reaped child no longer does). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
