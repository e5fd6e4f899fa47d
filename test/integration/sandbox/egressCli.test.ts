import { execFile, type ExecFileException } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { parseAskComment } from "../../../src/protocol/ask.js";
import { startEgressProxy, type EgressLog, type EgressProxy } from "../../../src/sandbox/egress/egressProxy.js";
import { egressPolicy } from "../../../src/sandbox/egress/policy.js";
import { ensureBuilt } from "../../support/build.js";
import { installationToken, runGit } from "../../support/gitServer.js";

const BIN = join(projectRoot, "bin", "escalate");
const REPO = "octo/demo";

let tmp: string;
let sim: GitHubSimulator;
let proxy: EgressProxy;
/** The TCP front the sandbox's socat gives the agent (127.0.0.1:3128 inside), here on a free loopback port. */
let front: Server;
let proxyUrl: string;
let token: string;
let issue: number;
const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
const log: EgressLog = {
  debug: (fields, message) => logged.push({ level: "debug", fields, message }),
  info: (fields, message) => logged.push({ level: "info", fields, message }),
  warn: (fields, message) => logged.push({ level: "warn", fields, message }),
};

beforeAll(async () => {
  await ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), "egress-cli-"));
  sim = await GitHubSimulator.start({ webhookSecret: "s" });
  sim.addRepo(REPO);
  sim.addUser("alice");
  issue = sim.createIssue(REPO, { title: "Add a cache", author: "alice" }).number;
  token = await installationToken(sim, REPO, { issues: "write", metadata: "read" });
  proxy = await startEgressProxy({ dir: join(tmp, "egress"), policy: egressPolicy({ baseUrl: sim.apiUrl, serverUrl: sim.url, networkAllow: [] }), log });
  front = createServer((client) => {
    const upstream = connect(join(proxy.endpoints.dir, proxy.endpoints.proxySocket));
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => (front ? front.close(resolve) : resolve(undefined)));
  await proxy?.close();
  await sim?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function escalate(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv = { PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter), ...env };
  return new Promise((resolve) => {
    execFile(BIN, args, { env: childEnv, cwd: projectRoot, timeout: 20_000 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("escalate through the egress proxy", () => {
  it("posts its ask to the simulator through HTTPS_PROXY/HTTP_PROXY, and the proxy logs the connection", async () => {
    const run = await escalate(["ask", "--question", "Which database?"], {
      GITHUB_TOKEN: token,
      GITHUB_API_URL: sim.apiUrl,
      GITHUB_REPOSITORY: REPO,
      ESCALATION_ISSUE: String(issue),
      HTTPS_PROXY: proxyUrl,
      HTTP_PROXY: proxyUrl,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const comments = sim.comments(REPO, issue);
    expect(comments).toHaveLength(1);
    expect(parseAskComment(comments[0]!.body)?.questions[0]?.text).toBe("Which database?");
    const [host, port] = sim.host.split(":");
    expect(logged).toContainEqual(expect.objectContaining({ message: "egress allowed", fields: expect.objectContaining({ host, port: Number(port) }) }));
  });

  it("fails with GitHub unreachable, not around the proxy, when the proxy refuses", async () => {
    const run = await escalate(["ask", "--question", "Which database?"], {
      GITHUB_TOKEN: token,
      // Loopback, but not the configured GitHub: refused by the proxy (and harmless if the CLI ever went around it).
      GITHUB_API_URL: "http://127.0.0.2:65000/api/v3",
      GITHUB_REPOSITORY: REPO,
      ESCALATION_ISSUE: String(issue),
      HTTP_PROXY: proxyUrl,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("could not be reached");
    expect(run.stderr).toContain("403");
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "warn", fields: expect.objectContaining({ host: "127.0.0.2", port: 65000, reason: "non-public-address" }) }),
    );
  });

  it("escalate mcp's ask_human goes through the proxy too", async () => {
    const before = logged.length;
    const transport = new StdioClientTransport({
      command: BIN,
      args: ["mcp"],
      cwd: projectRoot,
      env: {
        PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
        GITHUB_TOKEN: token,
        GITHUB_API_URL: sim.apiUrl,
        GITHUB_REPOSITORY: REPO,
        ESCALATION_ISSUE: String(issue),
        https_proxy: proxyUrl,
        http_proxy: proxyUrl,
      },
    });
    const client = new Client({ name: "egress-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "ask_human", arguments: { questions: [{ text: "Keep the old API?" }] } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(sim.comments(REPO, issue).some((c) => parseAskComment(c.body)?.questions[0]?.text === "Keep the old API?")).toBe(true);
    expect(logged.slice(before)).toContainEqual(expect.objectContaining({ message: "egress allowed" }));
  });

  it("git clones and pushes over plain HTTP through the proxy (absolute-form requests with bodies)", async () => {
    await sim.seedGit(REPO, { "README.md": "hello" });
    const pushToken = await installationToken(sim, REPO, { contents: "write", metadata: "read" });
    const before = logged.length;
    const checkout = join(tmp, "checkout");
    const remote = `http://x-access-token:${pushToken}@${sim.host}/${REPO}.git`;
    await runGit(["clone", remote, checkout], { env: { http_proxy: proxyUrl } });
    await runGit(["-C", checkout, "-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "--allow-empty", "-m", "through the proxy"]);
    await runGit(["-C", checkout, "push", "origin", "HEAD:refs/heads/through-proxy"], { env: { http_proxy: proxyUrl } });
    expect(Object.keys(await sim.branches(REPO))).toContain("through-proxy");
    const forwarded = logged
      .slice(before)
      .filter((l) => l.message === "egress allowed")
      .map((l) => l.fields.via);
    expect(forwarded).toEqual(expect.arrayContaining(["GET", "POST"]));
  });
});
