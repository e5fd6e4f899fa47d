import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { ensureBuilt } from "../../support/build.js";
import { waitFor } from "../../support/harness.js";
import { requirePrograms } from "../../support/programs.js";
import { sleepers } from "../../support/sleepers.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter", "setpriv"));

/**
 * A real bwrap round, driven by a stand-in app (a node process running dist/) as root and as an
 * unprivileged user: what the agent can see, read, write and reach.
 */
const NOBODY = 65534;
const root = mkdtempSync(join(tmpdir(), "escalation-sandbox-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
chmodSync(root, 0o755);

/** Files the agent must not read: a fake DATA_DIR, an app directory with its key, another issue's checkout. */
const SECRETS = [
  join(root, "data", "state.json"),
  join(root, "app", "key.pem"),
  join(root, "app", ".env"),
  join(root, "workspaces", "other", "checkout", "notes.txt"),
];
for (const path of SECRETS) {
  mkdirSync(resolve(path, ".."), { recursive: true });
  writeFileSync(path, "SECRET-DO-NOT-READ\n");
}

/** Marks the stand-in app's command line, so the agent can look for it under /proc. */
const APP_MARK = "escalation-sandbox-stand-in-app";

/** The agent: writes what it found into its checkout (report.txt). */
const AGENT = (hostPort: number) => `
exec >report.txt 2>&1
echo "pids $(ls -d /proc/[0-9]* | wc -l)"
for p in /proc/[0-9]*; do tr '\\0' ' ' <"$p/cmdline"; echo; done | grep -c "${APP_MARK.slice(0, -1)}[${APP_MARK.slice(-1)}]" | sed 's/^/app-visible /'
for f in ${[...SECRETS, join(projectRoot, "package.json")].join(" ")}; do if cat "$f" >/dev/null 2>&1; then echo "READ $f"; else echo "DENIED $f"; fi; done
echo "home $HOME $(touch "$HOME/x" && echo writable)"
escalate --help >/dev/null && echo "escalate runs"
node -e '
const net = require("node:net");
const dial = (port, send) => new Promise((done) => {
  const s = net.connect(port, "127.0.0.1");
  let got = "";
  s.on("connect", () => send ? s.write(send) : s.end());
  s.on("data", (d) => { got += d; s.end(); });
  s.on("close", () => done(got ? "REPLY " + got : "CLOSED"));
  s.on("error", (e) => done("ERROR " + e.code));
});
(async () => {
  console.log("host-loopback " + await dial(${hostPort}));
  console.log("bridge " + await dial(3128, "ping"));
  console.log("proxy " + process.env.HTTPS_PROXY);
})();'
`;

interface Report {
  run: { exitCode?: number; failed: boolean; tail: string[] };
  report: string;
}

/** Runs one sandboxed round in a stand-in app, as root or (setpriv) as nobody. */
async function round(options: { as: "root" | "nobody"; hostPort: number; egressDir: string; workdir: string }): Promise<Report> {
  const dist = (path: string) => JSON.stringify(pathToFileURL(join(projectRoot, "dist", path)).href);
  const script = `
    import { startSandbox } from ${dist("sandbox/sandbox.js")};
    import { runAgent } from ${dist("agent/runAgent.js")};
    const log = { info() {}, warn() {}, error(o) { console.error(JSON.stringify(o)); } };
    const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, log, { dir: ${JSON.stringify(options.egressDir)}, proxySocket: "proxy.sock", passThrough: [] });
    const inside = await sandbox.forRound({ workdir: ${JSON.stringify(options.workdir)}, taskFile: ${JSON.stringify(task(options.workdir))} });
    const env = inside.env({ PATH: ${JSON.stringify(`${join(projectRoot, "bin")}:/usr/local/bin:/usr/bin:/bin`)}, HOME: "/root" });
    const run = await runAgent({ argv: ["/bin/sh", "-c", ${JSON.stringify(AGENT(options.hostPort))}], cwd: ${JSON.stringify(options.workdir)}, env, input: "", timeoutMs: 60000, killGraceMs: 500, sandbox: inside });
    inside.release();
    sandbox.close();
    console.log(JSON.stringify(run));`;
  const argv = [process.execPath, "--input-type=module", "-e", script, APP_MARK];
  const [file, ...args] = options.as === "root" ? argv : ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...argv];
  const stdout = await new Promise<string>((done, fail) =>
    execFile(file!, args, { cwd: root, timeout: 90_000 }, (error, out, err) => (error ? fail(new Error(`${error.message}\n${err}`)) : done(out))),
  );
  return { run: JSON.parse(stdout.trim().split("\n").pop()!), report: readFileSync(join(options.workdir, "report.txt"), "utf8") };
}

describe.each<["root" | "nobody"]>([["root"], ["nobody"]])("a sandboxed agent, the app running as %s", (as) => {
  let host: Server;
  let proxy: Server;
  let hostConnections = 0;
  const egressDir = join(root, `egress-${as}`);
  const workdir = join(root, "workspaces", `mine-${as}`, "checkout");

  beforeAll(async () => {
    await ensureBuilt();
    mkdirSync(egressDir, { recursive: true });
    mkdirSync(workdir, { recursive: true });
    if (as === "nobody") chownSync(workdir, NOBODY, NOBODY);
    host = createServer((socket) => {
      hostConnections++;
      socket.end("from the host\n");
    });
    await new Promise<void>((done) => host.listen(0, "127.0.0.1", done));
    // Stands in for the egress proxy: answers on its unix socket.
    proxy = createServer((socket) => socket.once("data", (data) => socket.end(`pong to ${String(data)}`)));
    const socket = join(egressDir, "proxy.sock");
    await new Promise<void>((done) => proxy.listen(socket, done));
    chmodSync(socket, 0o777);
  }, 120_000);
  afterAll(async () => {
    await new Promise((done) => host.close(done));
    await new Promise((done) => proxy.close(done));
  });

  it("sees no process of the app, reads none of its secrets, writes its checkout, and reaches only the bridge", async () => {
    const port = (host.address() as { port: number }).port;
    const { run, report } = await round({ as, hostPort: port, egressDir, workdir });
    expect(run.failed, report + run.tail.join("\n")).toBe(false);
    // Its own pid namespace: a handful of processes (bwrap's init, the shell, its pipeline), none of the app.
    expect(Number(/^pids (\d+)/m.exec(report)?.[1])).toBeLessThan(10);
    expect(report).toMatch(/^app-visible 0$/m);
    for (const path of [...SECRETS, join(projectRoot, "package.json")]) expect(report).toContain(`DENIED ${path}`);
    expect(report).not.toContain("READ ");
    expect(report).toContain("home /home/agent writable");
    expect(report).toContain("escalate runs");
    // Host loopback is another network namespace: nothing listens on that port inside.
    expect(report).toContain("host-loopback ERROR ECONNREFUSED");
    expect(hostConnections).toBe(0);
    expect(report).toContain("bridge REPLY pong to ping");
    expect(report).toContain("proxy http://127.0.0.1:3128");
  }, 120_000);
});

describe("stopping a sandboxed agent", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 120_000);

  it("a timeout ends everything in the sandbox, even a process that left the agent's process group", async () => {
    const { runAgent } = await import("../../../src/agent/runAgent.js");
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const workdir = mkdtempSync(join(root, "stop-"));
    const mark = `${Date.now() % 100_000}.25`;
    const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, { info() {}, warn() {}, error() {} } as never);
    const inside = (await sandbox.forRound({ workdir, taskFile: task(workdir) }))!;
    const runs = runAgent({
      argv: ["/bin/sh", "-c", `sleep ${mark} & setsid sleep ${mark} & echo started >started; wait`],
      cwd: workdir,
      env: inside.env({ PATH: "/usr/bin:/bin" }),
      input: "",
      timeoutMs: 8000,
      killGraceMs: 300,
      sandbox: inside,
    });
    await waitFor("the sleepers", () => sleepers(mark).length === 2, 30_000);
    const run = await runs;
    inside.release();
    sandbox.close();
    expect(run.timedOut).toBe(true);
    await waitFor("every sleeper to be gone", () => sleepers(mark).length === 0, 10_000);
  }, 60_000);
});

describe("the release gate inside the sandbox", () => {
  it("an app gone before it opened the gate never starts the agent, and the sandbox ends", async () => {
    const { startSandbox } = await import("../../../src/sandbox/sandbox.js");
    const workdir = mkdtempSync(join(root, "gate-"));
    const egressDir = mkdtempSync(join(root, "gate-egress-"));
    const proxy = createServer((socket) => socket.end());
    await new Promise<void>((done) => proxy.listen(join(egressDir, "proxy.sock"), done));
    try {
      const sandbox = await startSandbox({ mode: "bwrap", binds: [] }, { info() {}, warn() {}, error() {} } as never, {
        dir: egressDir,
        proxySocket: "proxy.sock",
        passThrough: [],
      });
      const inside = (await sandbox.forRound({ workdir, taskFile: task(workdir) }))!;
      const { subprocess } = inside.start("/bin/sh", ["-c", "echo ran >ran"], {});
      // End of input without the release line: what the app's death before the registration leaves.
      subprocess.stdin?.end();
      const timer = setTimeout(() => subprocess.kill("SIGKILL"), 30_000);
      const result = await subprocess;
      clearTimeout(timer);
      inside.release();
      sandbox.close();
      expect(result.signal).toBeUndefined();
      expect(result.exitCode).toBe(0);
      expect(readdirSync(workdir)).toEqual([]);
    } finally {
      await new Promise((done) => proxy.close(done));
    }
  }, 60_000);
});

/** A task file beside the workdir, as the workspace keeps it outside the checkout. */
function task(workdir: string): string {
  const path = `${workdir}.task.md`;
  writeFileSync(path, "# Task\n");
  return path;
}
