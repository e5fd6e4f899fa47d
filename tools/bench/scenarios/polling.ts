import { spawn } from "node:child_process";
import { sign } from "node:crypto";
import { distribution, type Distribution } from "../stats.js";
import { sleep, waitUntil } from "../pool.js";
import { AGENT, REPOS, type ParkedGate, type Rig } from "../rig.js";
import { latencies } from "./replyToSpawn.js";

/**
 * (5) Side by side, in the same window: our webhook path and a comment-polling reply detector
 * (what polling approval tools do) at each interval. Every group gets `gatesPerGroup` gates and
 * replies at uniformly random offsets in [0, windowSeconds]. A poller lists its issue's comments
 * (GET …/issues/{n}/comments?since=<ask time>, installation token) every interval from a random
 * phase, and on the first human comment spawns the same trivial agent. Latency for both is from
 * the reply's creation to the agent process's start. A poller's API calls are its own requests
 * (one token, then one list per poll); ours per round trip come from measurement 4, where they are
 * counted in isolation (here the feedback of earlier measurements may still be draining).
 */
export interface PollerResult {
  intervalSeconds: number;
  gates: number;
  detected: number;
  latency: Distribution;
  calls: number;
  callsPerRoundTrip: number;
}

export interface PollingResult {
  windowSeconds: number;
  gatesPerGroup: number;
  ours: { latency: Distribution; arrivalLatency: Distribution; missing: number };
  pollers: PollerResult[];
}

function appJwt(appId: number, privateKey: string): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const data = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iat: now - 30, exp: now + 540, iss: String(appId) })}`;
  return `${data}.${sign("RSA-SHA256", Buffer.from(data), privateKey).toString("base64url")}`;
}

class Poller {
  calls = 0;
  readonly detectedAt = new Map<number, number>();
  #token = "";
  #stopped = false;

  constructor(
    private readonly rig: Rig,
    readonly intervalSeconds: number,
  ) {}

  private async request(method: string, path: string, auth: string): Promise<unknown> {
    this.calls++;
    const res = await fetch(`${this.rig.sim.apiUrl}${path}`, { method, headers: { authorization: auth, accept: "application/vnd.github+json" } });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}`);
    return res.json();
  }

  async start(gates: readonly ParkedGate[]): Promise<void> {
    const installation = this.rig.repo(REPOS.polled).installation_id;
    const minted = (await this.request(
      "POST",
      `/app/installations/${installation}/access_tokens`,
      `Bearer ${appJwt(this.rig.sim.appId, this.rig.sim.privateKey)}`,
    )) as { token: string };
    this.#token = minted.token;
    for (const gate of gates) void this.watch(gate);
  }

  private async watch(gate: ParkedGate): Promise<void> {
    const since = new Date(gate.askedAt).toISOString();
    await sleep(Math.random() * this.intervalSeconds * 1000);
    while (!this.#stopped) {
      const comments = (await this.request(
        "GET",
        `/repos/${gate.repo}/issues/${gate.issue}/comments?since=${encodeURIComponent(since)}&per_page=100`,
        `token ${this.#token}`,
      ).catch(() => [])) as Array<{ id: number; user: { type: string } }>;
      if (comments.some((c) => c.id !== gate.askComment.id && c.user.type !== "Bot")) {
        this.detectedAt.set(gate.issue, Date.now());
        const child = spawn(process.execPath, [AGENT, this.rig.agents.path, gate.repo, String(gate.issue), "1"], { stdio: "ignore" });
        child.on("error", () => undefined);
        return;
      }
      await sleep(this.intervalSeconds * 1000);
    }
  }

  stop(): void {
    this.#stopped = true;
  }
}

export async function measurePolling(rig: Rig, options: { gatesPerGroup: number; windowSeconds: number; intervals: number[] }): Promise<PollingResult> {
  const ours = await rig.parkGates(REPOS.sideBySide, options.gatesPerGroup, { inRedis: true });
  const polled = await Promise.all(options.intervals.map(() => rig.parkGates(REPOS.polled, options.gatesPerGroup, { inRedis: false })));
  await rig.quiesce({ feedback: false });
  const pollers = options.intervals.map((interval) => new Poller(rig, interval));
  await Promise.all(pollers.map((poller, i) => poller.start(polled[i]!)));

  const posted: Array<{ gate: ParkedGate; postedAt: number }> = [];
  const everyGate = [...ours, ...polled.flat()];
  await Promise.all(
    everyGate.map(async (gate) => {
      await sleep(Math.random() * options.windowSeconds * 1000);
      posted.push({ gate, postedAt: rig.reply(gate).postedAt });
    }),
  );
  await waitUntil(
    "every group's agents",
    () => {
      rig.agents.poll();
      return everyGate.every((g) => rig.agents.first(g.repo, g.issue));
    },
    (Math.max(...options.intervals) + 60) * 1000,
    100,
  ).catch(() => undefined);
  pollers.forEach((p) => p.stop());

  const postedOf = (gate: ParkedGate) => posted.find((p) => p.gate === gate)!.postedAt;
  const ourLatencies = latencies(
    rig,
    ours.map((gate) => ({ gate, postedAt: postedOf(gate) })),
  );
  return {
    windowSeconds: options.windowSeconds,
    gatesPerGroup: options.gatesPerGroup,
    ours: {
      latency: distribution(ourLatencies.postedToProcessStart),
      arrivalLatency: distribution(ourLatencies.arrivalToProcessStart),
      missing: ourLatencies.missing,
    },
    pollers: pollers.map((poller, i) => {
      const gates = polled[i]!;
      const values = gates.flatMap((gate) => {
        const agent = rig.agents.first(gate.repo, gate.issue);
        return agent ? [agent.processStart - postedOf(gate)] : [];
      });
      return {
        intervalSeconds: poller.intervalSeconds,
        gates: gates.length,
        detected: poller.detectedAt.size,
        latency: distribution(values),
        calls: poller.calls,
        callsPerRoundTrip: poller.calls / gates.length,
      };
    }),
  };
}
