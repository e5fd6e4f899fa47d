import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "../../src/redis/privateRedis.js";
import { waitFor } from "./harness.js";
import { requirePrograms } from "./programs.js";

/**
 * Redis topologies the app meets in production, started on loopback at free ports from config
 * files in a temp dir (redis-sentinel rewrites its own), and stopped with everything they wrote.
 */

interface Process {
  port: number;
  child: ChildProcess;
  output: () => string;
}

async function startProcess(
  binary: "redis-server" | "redis-sentinel",
  dir: string,
  name: string,
  port: number,
  config: string[],
  password: string,
): Promise<Process> {
  requirePrograms(binary);
  const path = join(dir, `${name}.conf`);
  writeFileSync(path, [`port ${port}`, "bind 127.0.0.1", `dir ${dir}`, 'logfile ""', "daemonize no", ...config].join("\n") + "\n", { mode: 0o600 });
  let output = "";
  const child = spawn(binary, [path], { stdio: ["ignore", "pipe", "pipe"] });
  child.on("error", (error) => (output += `${error.message}\n`));
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const client = new Redis({ host: "127.0.0.1", port, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => undefined);
  try {
    await waitFor(
      `${name} on port ${port} to answer PING`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${binary} exited: ${output}`);
        if (client.status !== "ready") await client.connect().catch(() => client.disconnect());
        return (await client.ping()) === "PONG";
      },
      15_000,
    );
  } finally {
    client.disconnect();
  }
  return { port, child, output: () => output };
}

async function stopProcesses(processes: Process[]): Promise<void> {
  await Promise.all(
    processes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }),
  );
}

/** Redis commands to one process of a topology, as its administrator. */
export function adminClient(port: number, password: string): Redis {
  const client = new Redis({ host: "127.0.0.1", port, password, maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  return client;
}

export interface SentinelSetup {
  /** REDIS_URL for the app: both Sentinels, the master's password, the Sentinels' password. */
  url: string;
  masterName: string;
  password: string;
  sentinelPassword: string;
  masterPort: number;
  replicaPort: number;
  sentinelPorts: number[];
  /** The master's port as the first Sentinel reports it now. */
  currentMasterPort(): Promise<number>;
  /** SIGKILLs the redis-server on `port`, as a crashed host would lose it. */
  killServer(port: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A master, one replica and two Sentinels on 127.0.0.1, quick to fail over (1 s to call a master
 * down); resolves once both Sentinels know the replica, so SENTINEL FAILOVER has one to promote.
 */
export async function startSentinelSetup(): Promise<SentinelSetup> {
  const dir = mkdtempSync(join(tmpdir(), "esc-sentinel-"));
  const password = randomBytes(12).toString("hex");
  const sentinelPassword = randomBytes(12).toString("hex");
  const masterName = "mymaster";
  const processes: Process[] = [];
  const stop = async () => {
    await stopProcesses(processes);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Each server may become the other's replica: both know the password (masterauth).
    const server = ['save ""', "appendonly no", `requirepass ${password}`, `masterauth ${password}`, "replica-announce-ip 127.0.0.1"];
    const master = await startProcess("redis-server", dir, "master", await freePort(), server, password);
    processes.push(master);
    const replica = await startProcess("redis-server", dir, "replica", await freePort(), [...server, `replicaof 127.0.0.1 ${master.port}`], password);
    processes.push(replica);
    const sentinelPorts: number[] = [];
    for (const name of ["sentinel-1", "sentinel-2"]) {
      const sentinel = await startProcess(
        "redis-sentinel",
        dir,
        name,
        await freePort(),
        [
          "sentinel resolve-hostnames yes",
          "sentinel announce-ip 127.0.0.1",
          `requirepass ${sentinelPassword}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 1`,
          `sentinel auth-pass ${masterName} ${password}`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
        ],
        sentinelPassword,
      );
      processes.push(sentinel);
      sentinelPorts.push(sentinel.port);
    }
    for (const port of sentinelPorts) {
      const client = adminClient(port, sentinelPassword);
      try {
        await waitFor(
          `Sentinel ${port} to know the replica`,
          async () => {
            const replicas = (await client.call("SENTINEL", "REPLICAS", masterName)) as string[][];
            return replicas.some((fields) => {
              const info = Object.fromEntries(fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])));
              return info.port === String(replica.port) && info.flags === "slave" && info["master-link-status"] === "ok";
            });
          },
          20_000,
        );
      } finally {
        client.disconnect();
      }
    }
    return {
      url: `redis+sentinel://:${password}@${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(",")}/${masterName}?sentinelPassword=${sentinelPassword}`,
      masterName,
      password,
      sentinelPassword,
      masterPort: master.port,
      replicaPort: replica.port,
      sentinelPorts,
      async currentMasterPort() {
        const client = adminClient(sentinelPorts[0]!, sentinelPassword);
        try {
          const [, port] = (await client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)) as [string, string];
          return Number(port);
        } finally {
          client.disconnect();
        }
      },
      async killServer(port: number) {
        await stopProcesses(processes.filter((p) => p.port === port));
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface ClusterSetup {
  ports: number[];
  password: string;
  stop(): Promise<void>;
}

/** Three cluster-enabled masters on 127.0.0.1 made into one cluster by `redis-cli --cluster create`. */
export async function startCluster(): Promise<ClusterSetup> {
  requirePrograms("redis-server", "redis-cli");
  const dir = mkdtempSync(join(tmpdir(), "esc-cluster-"));
  const password = randomBytes(12).toString("hex");
  const processes: Process[] = [];
  const stop = async () => {
    await stopProcesses(processes);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const name of ["node-1", "node-2", "node-3"]) {
      const port = await freePort();
      const config = [
        'save ""',
        "appendonly no",
        "cluster-enabled yes",
        `cluster-config-file nodes-${port}.conf`,
        "cluster-node-timeout 5000",
        "cluster-announce-ip 127.0.0.1",
        `requirepass ${password}`,
        `masterauth ${password}`,
      ];
      processes.push(await startProcess("redis-server", dir, name, port, config, password));
    }
    const ports = processes.map((p) => p.port);
    await new Promise<void>((resolve, reject) => {
      // The password reaches redis-cli through its environment, not its command line.
      execFile(
        "redis-cli",
        ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-yes"],
        { env: { ...process.env, REDISCLI_AUTH: password }, timeout: 30_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`redis-cli --cluster create failed: ${stderr}${stdout}`)) : resolve()),
      );
    });
    const client = adminClient(ports[0]!, password);
    try {
      await waitFor("the cluster to be ok", async () => ((await client.call("CLUSTER", "INFO")) as string).includes("cluster_state:ok"), 20_000);
    } finally {
      client.disconnect();
    }
    return { ports, password, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
