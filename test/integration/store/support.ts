import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { NewGate, RecordedAnswer } from "../../../src/domain.js";
import { validateAsk } from "../../../src/protocol/ask.js";
import type { Stores } from "../../../src/store/stores.js";

/** What the store's integration tests share: an issue, and gates on it with ids no other test uses. */
export const REPO = "Octo/Demo";
/** A round limit no test reaches, except the one about limits. */
export const LIMIT = 1000;
export const ref = { repo: REPO, issue: 7 };
let seq = 0;

/** A fresh gate id: `kind`, a counter and a random part. */
export function gateId(kind = "gate"): string {
  return `${kind}-${++seq}-${randomUUID().slice(0, 6)}`;
}

/** The loop records the issue before it opens a gate; getIssue needs that record. */
export const withIssue = async (store: Stores, issue = 7) => {
  await store.issues.upsertIssue({ repo: REPO, issue, installationId: 99, title: "Add a cache", body: "", url: `https://x/${issue}`, assignees: [] });
  return store;
};

export function newGate(over: Partial<NewGate> = {}): NewGate {
  const id = over.id ?? gateId();
  return {
    id,
    repo: REPO,
    issue: 7,
    installationId: 99,
    round: 0,
    ask: validateAsk({ v: 1, id, round: over.round ?? 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"], default: "2" }] }),
    askedAt: 1_000 + seq,
    askedBy: "agent[bot]",
    askUrl: `https://github.com/${REPO}/issues/7#issuecomment-${seq}`,
    ...over,
  };
}

export const answer = (by = "alice", commentId = 500): RecordedAnswer[] => [
  { question: 0, text: "2", option: "SQLite", optionIndex: 1, by, at: 5_000, source: "human", commentId },
];

/** A secret a withdrawn answer or note held: it must not stay anywhere in Redis. */
export const SECRET = "hunter2-s3cret";

/** Every value under the store's namespace, as text: where a withdrawn secret must not be. */
export async function everything(redis: Redis, store: Stores): Promise<string> {
  const keys = await redis.keys(`${store.gates.keys.prefix}:*`);
  const values = await Promise.all(
    keys.map(async (key) => {
      const type = await redis.type(key);
      if (type === "hash") return JSON.stringify(await redis.hgetall(key));
      if (type === "list") return JSON.stringify(await redis.lrange(key, 0, -1));
      if (type === "string") return (await redis.get(key)) ?? "";
      return "";
    }),
  );
  return values.join("\n");
}
