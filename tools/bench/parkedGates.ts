import { Redis } from "ioredis";
import type { Ask } from "../../src/domain.js";
import { openStores, type Stores } from "../../src/store/stores.js";
import { newAskId, validateAsk } from "../../src/protocol/ask.js";
import { inPool } from "./pool.js";

export const QUESTION = "Which database should the cache use?";

/** A fresh validated ask with one question, as `escalate ask` would post it. */
export function benchAsk(): Ask {
  return validateAsk({ v: 1, id: newAskId(), round: 0, questions: [{ text: QUESTION, options: ["Postgres", "SQLite"] }] });
}

/** What the app knows of a parked gate and its issue. */
export interface GateToPark {
  repo: string;
  issue: number;
  installationId: number;
  gateId: string;
  title: string;
  body: string;
  issueUrl: string;
  askUrl: string;
  askedAt: number;
  askedBy: string;
  ask: Ask;
}

/**
 * Writes a parked gate's records through the store modules, as the app writes them: the issue, round 0
 * allocated first (the dispatch that ran the asking agent), then the open gate.
 */
export async function storeParkedGate(store: Stores, gate: GateToPark): Promise<void> {
  const ref = { repo: gate.repo, issue: gate.issue };
  await store.issues.upsertIssue({ ...ref, installationId: gate.installationId, title: gate.title, body: gate.body, url: gate.issueUrl, assignees: [] });
  await store.rounds.allocateRound(ref, `dispatch-bench-${gate.issue}`, 10);
  await store.gates.openGate({
    ...ref,
    id: gate.gateId,
    installationId: gate.installationId,
    round: 0,
    ask: gate.ask,
    askedAt: gate.askedAt,
    askedBy: gate.askedBy,
    askUrl: gate.askUrl,
  });
}

/** GitHub's issue comment ids have 10 digits now; the simulator's start at 1,000,001, so these never meet one of its comments. */
const FIRST_SEEDED_ID = 3_000_000_000;

export interface SeedOptions {
  redisUrl: string;
  prefix: string;
  repo: string;
  installationId: number;
  /** Where the simulator's html_url links point (its root). */
  webUrl: string;
  askedBy: string;
  count: number;
}

/**
 * Parks `count` gates in Redis only, through the store modules' own scripts, on a connection that
 * pipelines whatever is in flight: 100,000 in about a minute. The simulator does not hold them
 * (its events carry the repository's open-issue count, counted over every issue, so creating n
 * issues there takes time in n²); nothing of the app reads them but the open-gates index.
 */
export async function seedParkedGates(options: SeedOptions): Promise<Array<{ repo: string; issue: number; gateId: string }>> {
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: true });
  try {
    const store = openStores(redis, options.prefix);
    const askedAt = Date.now();
    const gates = Array.from({ length: options.count }, (_, i) => ({ repo: options.repo, issue: i + 1, gateId: String(FIRST_SEEDED_ID + i) }));
    await inPool(gates, 256, (g) => {
      const issueUrl = `${options.webUrl}/${g.repo}/issues/${g.issue}`;
      return storeParkedGate(store, {
        ...g,
        installationId: options.installationId,
        title: `Bench task ${g.issue - 1}: add a cache`,
        body: "The lookups are slow; cache them.",
        issueUrl,
        askUrl: `${issueUrl}#issuecomment-${g.gateId}`,
        askedAt: askedAt + g.issue,
        askedBy: options.askedBy,
        ask: benchAsk(),
      });
    });
    return gates;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
