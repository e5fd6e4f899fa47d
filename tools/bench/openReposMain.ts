/**
 * What a scheduled reconciliation pays to learn the repositories with open gates, at `--count`
 * parked gates over `--repos` repositories, on a throw-away private Redis: the read before the
 * index (ZRANGE of the open gates, one pipelined HMGET per gate, as GateRecords.openGateRepos did
 * until issue 18's index), the index's one-time build, and its read (one HGETALL). Also what the
 * index costs the transitions: parking the gates with the index built against without it.
 *
 *   node .tools-build/tools/bench/openReposMain.js [--count 100000] [--repos 1000] [--reads 20]
 */
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startPrivateRedis } from "../../src/redis/privateRedis.js";
import { openStores, type Stores } from "../../src/store/stores.js";
import { benchAsk, storeParkedGate } from "./parkedGates.js";
import { inPool } from "./pool.js";

const { values } = parseArgs({
  options: { count: { type: "string", default: "100000" }, repos: { type: "string", default: "1000" }, reads: { type: "string", default: "20" } },
});
const COUNT = Number(values.count);
const REPO_COUNT = Number(values.repos);
const READS = Number(values.reads);

/** Redis's own count of the commands it ran and their time (INFO commandstats, commands inside scripts included). */
async function serverStats(redis: Redis): Promise<{ calls: number; usec: number }> {
  const info = await redis.info("commandstats");
  let calls = 0;
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm)) {
    if (m[1] === "info" || m[1] === "config") continue;
    calls += Number(m[2]);
    usec += Number(m[3]);
  }
  return { calls, usec };
}

/** Runs `read` `times` times: the median wall time (ms), and the commands Redis ran and their time per read. */
async function measure(redis: Redis, times: number, read: () => Promise<unknown>): Promise<{ ms: number; commands: number; serverMs: number }> {
  const walls: number[] = [];
  await redis.config("RESETSTAT");
  for (let i = 0; i < times; i++) {
    const started = process.hrtime.bigint();
    await read();
    walls.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const stats = await serverStats(redis);
  walls.sort((a, b) => a - b);
  return { ms: walls[Math.floor(walls.length / 2)]!, commands: stats.calls / times, serverMs: stats.usec / 1000 / times };
}

/** The read before the index, as GateRecords.openGateRepos did it (commit b9c23b5). */
async function readBefore(redis: Redis, store: Stores): Promise<Map<number, Set<string>>> {
  const ids = await redis.zrange(store.gates.keys.openGates(), 0, -1);
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hmget(store.gates.keys.gate(id), "installationId", "repo");
  const out = new Map<number, Set<string>>();
  for (const [, row] of (await pipeline.exec()) ?? []) {
    const [installationId, repo] = (row ?? []) as Array<string | null>;
    if (!installationId || !repo) continue;
    out.set(Number(installationId), (out.get(Number(installationId)) ?? new Set<string>()).add(repo));
  }
  return out;
}

/** Parks COUNT gates over REPO_COUNT repositories under `prefix`; seconds taken. */
async function park(redis: Redis, prefix: string): Promise<number> {
  const store = openStores(redis, prefix);
  const started = Date.now();
  await inPool(
    Array.from({ length: COUNT }, (_, i) => i),
    256,
    (i) => {
      const repo = `bench/repo-${i % REPO_COUNT}`;
      const issue = Math.floor(i / REPO_COUNT) + 1;
      const url = `http://127.0.0.1/${repo}/issues/${issue}`;
      return storeParkedGate(store, {
        repo,
        issue,
        installationId: 1 + ((i % REPO_COUNT) % 3),
        gateId: String(3_000_000_000 + i),
        title: `Bench task ${i}`,
        body: "Cache the lookups.",
        issueUrl: url,
        askUrl: `${url}#c`,
        askedAt: 1_000 + i,
        askedBy: "agent[bot]",
        ask: benchAsk(),
      });
    },
  );
  return (Date.now() - started) / 1000;
}

const server = await startPrivateRedis();
const redis = new Redis(server.url, { maxRetriesPerRequest: null, enableAutoPipelining: true });
const plain = new Redis(server.url, { maxRetriesPerRequest: null });
try {
  // Parked as the previous version left them (no index), then parked with the index built first.
  const withoutIndex = await park(redis, "before");
  const indexed = openStores(plain, "after");
  await indexed.gates.openGateRepos();
  const withIndex = await park(redis, "after");
  const store = openStores(plain, "before");
  const before = await measure(plain, Math.min(READS, 5), () => readBefore(plain, store));
  const build = await measure(plain, 1, () => store.gates.openGateRepos());
  const after = await measure(plain, READS, () => store.gates.openGateRepos());
  const same =
    JSON.stringify([...(await readBefore(plain, store))].map(([k, v]) => [k, [...v].sort()]).sort()) ===
    JSON.stringify([...(await store.gates.openGateRepos())].map(([k, v]) => [k, [...v].sort()]).sort());
  const indexBytes = await plain.memory("USAGE", store.gates.keys.openGateRepos());
  console.log(
    JSON.stringify(
      { count: COUNT, repos: REPO_COUNT, sameAnswer: same, parkSeconds: { withoutIndex, withIndex }, read: { before, build, after }, indexBytes },
      null,
      2,
    ),
  );
} finally {
  redis.disconnect();
  plain.disconnect();
  await server.stop();
}
