import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { statusCommand } from "../../../src/cli/commands/status.js";
import { EnvironmentError, UsageError } from "../../../src/cli/usage.js";
import { StoreUnavailableError } from "../../../src/errors.js";
import { openStores } from "../../../src/store/stores.js";
import { gateFixture, newGate } from "../../support/gates.js";

let redis: Redis;
let prefix: string;
const T0 = Date.parse("2025-01-01T12:00:00Z");
const NOW = T0 + 3600_000;

beforeAll(async () => {
  redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
  prefix = `st-${randomUUID().slice(0, 8)}`;
  const store = openStores(redis, prefix);
  const gates = [
    gateFixture({ id: "101", repo: "acme/widgets", issue: 12, askedAt: T0, ask: { timeoutSeconds: 1800 } }),
    gateFixture({
      id: "102",
      repo: "acme/api",
      issue: 3,
      askedAt: T0 + 600_000,
      ask: { kind: "review", questions: [{ text: "Ship it?", options: ["yes", "no"] }] },
    }),
    gateFixture({
      id: "103",
      repo: "Acme/Widgets",
      issue: 14,
      askedAt: T0 + 1200_000,
      ask: { timeoutSeconds: 7200, questions: [{ text: "Free text?", default: "none" }] },
    }),
  ];
  for (const gate of gates) {
    await store.issues.upsertIssue({ repo: gate.repo, issue: gate.issue, installationId: 1, title: `Issue ${gate.issue}`, body: "", url: "", assignees: [] });
    expect((await store.gates.openGate(newGate(gate))).opened).toBe(true);
  }
});
afterAll(async () => {
  await redis?.quit();
});

const env = () => ({ REDIS_URL: inject("redisUrl"), REDIS_PREFIX: prefix });
async function run(argv: string[], e: NodeJS.ProcessEnv = env()): Promise<string> {
  const lines: string[] = [];
  await statusCommand(argv, e, (text) => lines.push(text), NOW);
  return lines.join("\n");
}

describe("escalate status", () => {
  it("--json lists every open gate oldest first, exactly, with counts", async () => {
    const report = JSON.parse(await run(["--json"]));
    expect(report.generatedAt).toBe("2025-01-01T13:00:00.000Z");
    expect(report.gates.map((g: { id: string }) => g.id)).toEqual(["101", "102", "103"]);
    expect(report.gates[0]).toEqual({
      id: "101",
      repo: "acme/widgets",
      issue: 12,
      title: "Issue 12",
      kind: "question",
      round: 0,
      state: "open",
      askedBy: "escalation[bot]",
      approval: null,
      askedAt: "2025-01-01T12:00:00.000Z",
      ageSeconds: 3600,
      context: null,
      questions: [
        {
          number: 1,
          text: "Which database should the cache use?",
          options: ["Postgres", "SQLite"],
          default: "SQLite",
          timeoutSeconds: 1800,
          deadline: "2025-01-01T12:30:00.000Z",
          answer: null,
        },
      ],
      deadline: "2025-01-01T12:30:00.000Z",
      timeLeftSeconds: -1800,
      overdueSince: null,
      url: "https://github.com/acme/widgets/issues/12#issuecomment-101",
      issueUrl: "https://github.com/acme/widgets/issues/12",
      paths: [],
      answerers: [{ kind: "permission", name: "allowed", via: "permission" }],
    });
    expect(report.byAnswerer).toBeUndefined();
    expect(report.counts).toEqual({ open: 3, waiting: 1, overdue: 1, noTimeout: 1, partial: 0 });
  });

  it("--repo keeps one repository, case-insensitively", async () => {
    const report = JSON.parse(await run(["--json", "--repo", "ACME/widgets"]));
    expect(report.gates.map((g: { id: string }) => g.id)).toEqual(["101", "103"]);
    expect(report.counts.open).toBe(2);
  });

  it("prints a table by default", async () => {
    const text = await run([]);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^GATE\s+ISSUE\s+KIND\s+AGE\s+TIME LEFT\s+LINK$/);
    expect(lines[1]).toMatch(/^101\s+acme\/widgets#12\s+question\s+1h\s+overdue 30m\s+https:\/\/github\.com\/acme\/widgets\/issues\/12#issuecomment-101$/);
    expect(text).toMatch(/^102\s+acme\/api#3\s+review\s+50m\s+-\s+https:/m);
    expect(text).toMatch(/^103\s+Acme\/Widgets#14\s+question\s+40m\s+1h 20m\s+https:/m);
    expect(text).toContain("1) yes  2) no");
    expect(text).toContain("default: none");
    expect(lines.at(-1)).toBe("3 open: 1 waiting, 1 overdue, 1 without timeout, 0 partly answered");
  });

  it("an empty namespace has no open gates", async () => {
    expect(await run([], { REDIS_URL: inject("redisUrl"), REDIS_PREFIX: "st-empty-namespace" })).toBe(
      "No open gates.\n\n0 open: 0 waiting, 0 overdue, 0 without timeout, 0 partly answered",
    );
  });

  it("without REDIS_URL, or a redis.url in DATA_DIR, is an environment error that says what to set", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "esc-status-nodata-"));
    const failure = (await run([], { DATA_DIR: dataDir }).catch((e: unknown) => e)) as EnvironmentError;
    expect(failure).toBeInstanceOf(EnvironmentError);
    expect(failure.message).toBe(
      `REDIS_URL is not set and there is no ${join(dataDir, "redis.url")}: set REDIS_URL to the app's Redis, or DATA_DIR to the data directory of the running app (its private Redis writes redis.url there).`,
    );
    expect(failure.variables).toEqual(["REDIS_URL", "DATA_DIR"]);
  });

  it("a redis.url that holds no Redis URL is refused naming the file", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "esc-status-garbled-"));
    writeFileSync(join(dataDir, "redis.url"), "not a url\n");
    const failure = (await run([], { DATA_DIR: dataDir }).catch((e: unknown) => e)) as EnvironmentError;
    expect(failure).toBeInstanceOf(EnvironmentError);
    expect(failure.message).toBe(
      `REDIS_URL is not set and ${join(dataDir, "redis.url")} cannot be used (it does not hold a redis:// URL); or set REDIS_URL to the app's Redis.`,
    );
  });

  it("bad flags are usage errors", async () => {
    await expect(run(["--repo", "nope"])).rejects.toThrow(/--repo must be OWNER\/REPO \(got "nope"\)/);
    await expect(run(["--colour"])).rejects.toThrow(UsageError);
  });

  it("an unreachable Redis fails fast with a store error that hides the password", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const started = Date.now();
    const failure = run([], { REDIS_URL: `redis://user:hunter2@127.0.0.1:${port}` }).catch((e: unknown) => e);
    const error = (await failure) as Error;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).toContain(`Could not reach Redis at redis://user:***@127.0.0.1:${port}`);
    expect(error.message).not.toContain("hunter2");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
