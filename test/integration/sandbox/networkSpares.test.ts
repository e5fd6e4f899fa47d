import { spawn } from "node:child_process";
import { chmodSync, closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { ensureBuilt } from "../../support/build.js";
import { waitFor } from "../../support/harness.js";
import { requirePrograms } from "../../support/programs.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter", "setpriv"));

/**
 * The warm network namespaces a sandboxed round enters (src/sandbox/networkSpares.ts): each round
 * gets one of its own with the bridges already up, and nothing of it outlives its round or the app.
 */
const root = mkdtempSync(join(tmpdir(), "escalation-spares-"));
chmodSync(root, 0o755);
const egressDir = join(root, "egress");
let proxy: Server;
const quiet = { info() {}, warn() {}, error() {} } as never;

beforeAll(async () => {
  await ensureBuilt();
  mkdirSync(egressDir);
  proxy = createServer((socket) => socket.once("data", (data) => socket.end(`pong to ${String(data)}`)));
  await new Promise<void>((done) => proxy.listen(join(egressDir, "proxy.sock"), done));
}, 120_000);
afterAll(async () => {
  await new Promise((done) => proxy.close(done));
  rmSync(root, { recursive: true, force: true });
});

/** Runs `script` in a sandboxed round; its stdout's lines. */
async function inRound(sandbox: import("../../../src/sandbox/sandbox.js").Sandbox, script: string): Promise<string[]> {
  const { runAgent } = await import("../../../src/agent/runAgent.js");
  const workdir = mkdtempSync(join(root, "round-"));
  const taskFile = `${workdir}.task.md`;
  writeFileSync(taskFile, "# Task\n");
  const inside = (await sandbox.forRound({ workdir, taskFile }))!;
  try {
    const run = await runAgent({
      argv: ["/bin/sh", "-c", script],
      cwd: workdir,
      env: inside.env({ PATH: "/usr/bin:/bin" }),
      input: "",
      timeoutMs: 30_000,
      killGraceMs: 300,
      sandbox: inside,
    });
    expect(run.failed, run.tail.join("\n")).toBe(false);
    return run.tail;
  } finally {
    inside.release();
  }
}

/** Host pids of processes in the network namespace `ns` (as readlink shows it: net:[…]). */
function inNamespace(ns: string): number[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readlinkSync(`/proc/${entry}/ns/net`) === ns ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** Host pids whose command line mentions `text`. */
function commandsWith(text: string): number[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** A round's bwrap started ahead (src/sandbox/pendingRound.ts), still waiting for its round's arguments. */
function waitingRound(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("\0--args\x004\0");
  } catch {
    return false;
  }
}

/**
 * Namespaces this test holds open. An ended namespace's number (net:[…]) goes to the next one
 * created, here or in another test file, so a test waiting for one to empty must keep its number its own.
 */
const pinned = new Map<string, number>();
afterEach(() => {
  for (const fd of pinned.values()) closeSync(fd);
  pinned.clear();
});

/** The network namespaces of the holders whose command line names `egress` (not the host's), each pinned until the test ends. */
function spareNamespaces(egress: string): string[] {
  const host = readlinkSync("/proc/self/ns/net");
  const all = commandsWith(egress).flatMap((pid) => {
    try {
      const ns = readlinkSync(`/proc/${pid}/ns/net`);
      if (ns !== host && !pinned.has(ns)) {
        const fd = openSync(`/proc/${pid}/ns/net`, "r");
        // The pid may have ended and been reused between the two reads: pin only what was named.
        if (`net:[${fstatSync(fd).ino}]` === ns) pinned.set(ns, fd);
        else closeSync(fd);
      }
      return pinned.has(ns) ? [ns] : [];
    } catch {
      return [];
    }
  });
  return [...new Set(all)];
}

describe("warm network namespaces", () => {
  it("hold the round's bwrap already started inside, which runs the agent in exactly its environment; unused ones end on close", async () => {
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, quiet, { dir: egressDir, proxySocket: "proxy.sock", passThrough: [] }, 2);
    let spares: string[] = [];
    try {
      expect(sandbox.problem).toBeUndefined();
      await waitFor("two spares", () => spareNamespaces(egressDir).length === 2, 20_000);
      spares = spareNamespaces(egressDir);
      await waitFor("a round's bwrap waiting in each spare", () => spares.every((ns) => inNamespace(ns).some(waitingRound)), 20_000);
      const env = await inRound(sandbox, "env");
      expect(env.some((line) => line.startsWith("ESCALATION_LAUNCH_"))).toBe(false);
      expect(env).toContain("PATH=/usr/bin:/bin");
    } finally {
      sandbox.close();
    }
    await waitFor("the unused rounds' bwrap and every holder to end after close", () => spares.every((ns) => inNamespace(ns).length === 0), 30_000);
  }, 120_000);

  it("give each round a namespace of its own, not the host's, with the proxy bridge already listening, and end it with the round", async () => {
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, quiet, { dir: egressDir, proxySocket: "proxy.sock", passThrough: [] }, 2);
    try {
      expect(sandbox.problem).toBeUndefined();
      await waitFor("two spares", () => spareNamespaces(egressDir).length === 2, 20_000);
      const spares = spareNamespaces(egressDir);
      // No wait inside: the bridge must listen before the agent's first instruction.
      const script = `readlink /proc/self/ns/net; grep -c ' 0100007F:0C38 00000000:0000 0A ' /proc/net/tcp`;
      const first = await inRound(sandbox, script);
      const second = await inRound(sandbox, script);
      expect(first[0]).toMatch(/^net:\[\d+\]$/);
      expect(first[1]).toBe("1");
      expect(second[1]).toBe("1");
      expect(second[0]).not.toBe(first[0]);
      const host = readlinkSync("/proc/self/ns/net");
      expect([first[0], second[0]]).not.toContain(host);
      expect(spares).toEqual(expect.arrayContaining([first[0], second[0]]));
      // Released: nothing is left in either namespace (the holder's shell, its init and its bridges).
      // Generous: on a host with every core busy, the holders' processes are slow to be scheduled.
      await waitFor("the first round's namespace to empty", () => inNamespace(first[0]!).length === 0, 30_000);
      await waitFor("the second round's namespace to empty", () => inNamespace(second[0]!).length === 0, 30_000);
    } finally {
      sandbox.close();
    }
    await waitFor("every holder to end after close", () => commandsWith(egressDir).length === 0, 30_000);
  }, 120_000);

  it("bridge a loopback GitHub on a port below 1024, which the round itself could not bind", async () => {
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const api = createServer((socket) => socket.once("data", (data) => socket.end(`api got ${String(data)}`)));
    await new Promise<void>((done) => api.listen(join(egressDir, "api.sock"), done));
    const sandbox = await startSandbox(
      { mode: "bwrap", binds: [] },
      quiet,
      { dir: egressDir, proxySocket: "proxy.sock", passThrough: [{ host: "127.0.0.1", port: 80, socket: "api.sock" }] },
      1,
    );
    try {
      expect(sandbox.problem).toBeUndefined();
      const said = await inRound(sandbox, `printf hello | socat -t2 - TCP:127.0.0.1:80; echo; grep CapEff /proc/self/status`);
      expect(said[0]).toBe("api got hello");
      expect(said[1]).toMatch(/^CapEff:\s+0+$/);
    } finally {
      sandbox.close();
      await new Promise((done) => api.close(done));
    }
  }, 60_000);

  it("end with the app when it is killed outright, as root and as an unprivileged user", async () => {
    for (const as of ["root", "nobody"] as const) {
      const dir = mkdtempSync(join(root, `hard-${as}-`));
      chmodSync(dir, 0o755);
      const server = createServer((socket) => socket.end());
      await new Promise<void>((done) => server.listen(join(dir, "proxy.sock"), done));
      chmodSync(join(dir, "proxy.sock"), 0o777);
      const module = JSON.stringify(pathToFileURL(join(projectRoot, "dist", "sandbox", "sandbox.js")).href);
      const script = `const { startSandbox } = await import(${module});
        const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, { info() {}, warn() {}, error(o) { console.error(JSON.stringify(o)); } }, { dir: ${JSON.stringify(dir)}, proxySocket: "proxy.sock", passThrough: [] }, 3);
        console.log(sandbox.problem ?? "up");
        setInterval(() => {}, 1000);`;
      const argv = [process.execPath, "--input-type=module", "-e", script];
      const [file, ...args] = as === "root" ? argv : ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv];
      const app = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"] });
      try {
        const said = await new Promise<string>((done) => app.stdout.once("data", (chunk: Buffer) => done(chunk.toString().trim())));
        expect(said, as).toBe("up");
        await waitFor(`the ${as} app's spare holders`, () => commandsWith(dir).length >= 3, 20_000);
        await waitFor(`the ${as} app's three spare namespaces`, () => spareNamespaces(dir).length === 3, 20_000);
        const spares = spareNamespaces(dir);
        await waitFor(`a round's bwrap waiting in each of the ${as} app's spares`, () => spares.every((ns) => inNamespace(ns).some(waitingRound)), 20_000);
        app.kill("SIGKILL");
        await waitFor(`every holder of the ${as} app to end after its death`, () => commandsWith(dir).length === 0, 15_000);
        // The waiting rounds read end-of-file for their arguments and for the release line: nothing runs, nothing stays.
        await waitFor(`every process in the ${as} app's spares to end`, () => spares.every((ns) => inNamespace(ns).length === 0), 15_000);
      } finally {
        app.kill("SIGKILL");
        await new Promise((done) => server.close(done));
      }
    }
  }, 90_000);

  it("that cannot start make the sandbox's problem, in bwrap's words, and refuse the round", async () => {
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const { SandboxError } = await import("../../../src/errors.js");
    const missing = join(root, "no-such-egress");
    const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, quiet, { dir: missing, proxySocket: "proxy.sock", passThrough: [] }, 1);
    try {
      expect(sandbox.problem).toMatch(/AGENT_SANDBOX=bwrap.*network namespace could not start.*no-such-egress/);
      const workdir = mkdtempSync(join(root, "refused-"));
      await expect(sandbox.forRound({ workdir, taskFile: join(workdir, "task.md") })).rejects.toBeInstanceOf(SandboxError);
    } finally {
      sandbox.close();
    }
  }, 60_000);
});
