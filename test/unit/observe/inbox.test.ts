import { describe, expect, it } from "vitest";
import { viewGate } from "../../../src/observe/gateView.js";
import { InboxQuery, groupByAnswerer } from "../../../src/observe/inbox.js";
import { gateFixture } from "../../support/gates.js";

const T0 = Date.parse("2025-01-01T12:00:00Z");
const now = T0 + 3 * 3600_000;

const owned = gateFixture({
  id: "1",
  askedAt: T0,
  ask: { paths: ["src/db/cache.ts"] },
  answerers: { users: ["carol"], teams: [], codeOwners: { users: ["alice"], teams: ["acme/db-team"], paths: ["src/db/cache.ts"], file: ".github/CODEOWNERS" } },
});
const byWrite = gateFixture({
  id: "2",
  repo: "acme/api",
  issue: 7,
  askedAt: T0 + 3600_000,
  answers: [],
  ask: { questions: [{ text: "A?" }, { text: "B?" }] },
  answerers: { users: ["carol"], teams: [], minimumPermission: "write" },
});
const answeredFirst = { ...byWrite, answers: [{ question: 0, text: "yes", by: "bob", at: T0, source: "human" as const }] };

describe("the inbox: open gates grouped by who can answer them", () => {
  it("lists each gate under its code owners and configured answerers, or its assignees and the permission; groups and gates oldest first", () => {
    const views = [viewGate(owned, now, "Add a cache", ["dave"]), viewGate(answeredFirst, now, "Drop v1", ["Alice"])];
    expect(views[0]!.answerers).toEqual([
      { kind: "user", name: "alice", via: "code owner" },
      { kind: "team", name: "acme/db-team", via: "code owner" },
      { kind: "user", name: "carol", via: "configured" },
    ]);
    const groups = groupByAnswerer(views);
    expect(groups.map((g) => [g.answerer.label, g.count, g.oldestAgeSeconds, g.gates.map((e) => `${e.id}:${e.via}`)])).toEqual([
      ["@acme/db-team", 1, 10800, ["1:code owner"]],
      ["@alice", 2, 10800, ["1:code owner", "2:assignee"]],
      ["@carol", 2, 10800, ["1:configured", "2:configured"]],
      ["anyone with write access to acme/api", 1, 7200, ["2:permission"]],
    ]);
    const entry = groups[1]!.gates[1]!;
    expect(entry).toMatchObject({ repo: "acme/api", issue: 7, title: "Drop v1", question: "B?", ageSeconds: 7200, paths: [] });
    expect(groups[0]!.gates[0]!).toMatchObject({ question: "Which database should the cache use?", paths: ["src/db/cache.ts"] });
  });

  it("keeps only the groups of the answerers asked for", () => {
    const views = [viewGate(owned, now), viewGate(byWrite, now, undefined, ["dave"])];
    expect(groupByAnswerer(views, ["dave", "acme/db-team"]).map((g) => [g.answerer.name, g.gates.map((e) => e.id)])).toEqual([
      ["acme/db-team", ["1"]],
      ["dave", ["2"]],
    ]);
  });

  it("validates the query: --by and --answerer name the value they refuse", () => {
    expect(InboxQuery.parse({ answerers: ["@Alice", "acme/DB-team"] })).toEqual({ by: "repo", answerers: ["alice", "acme/db-team"] });
    const bad = InboxQuery.safeParse({ by: "team", answerers: ["not a login"] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.message)).toEqual([
      'must be repo or answerer (got "team")',
      'must be a GitHub login or org/team-slug, like alice or acme/db-team (got "not a login")',
    ]);
  });
});
