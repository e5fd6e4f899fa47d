import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { controlChannel } from "../../../src/agent/runningAgents.js";
import { IssueRounds } from "../../../src/store/issueRounds.js";
import { issueKey } from "../../../src/store/issueKey.js";
import { notesKey } from "../../../src/store/issueNotes.js";
import { epochKey } from "../../../src/store/namespaceMarks.js";
import { openStores } from "../../../src/store/stores.js";

// Never connects: the aggregates only define their scripts on it, and no command is sent.
const redis = new Redis({ lazyConnect: true });
afterAll(() => redis.disconnect());

/**
 * The key names and layout as the app has always written them: a Redis written by an earlier
 * version is read by this one only while every name stays exactly this.
 */
describe("the store's key names", () => {
  const s = openStores(redis, "p");
  const ref = { repo: "Octo/Demo", issue: 7 };

  it("gate records", () => {
    expect([
      s.gates.keys.gate("g1"),
      s.gates.keys.gatePrefix(),
      s.gates.keys.gateLadder("g1"),
      s.gates.keys.gateVotes("g1"),
      s.gates.keys.openGates(),
      s.gates.keys.openGateRepos(),
      s.gates.keys.issueGates(ref),
    ]).toEqual(["p:gate:g1", "p:gate:", "p:ladder:g1", "p:gate:g1:votes", "p:gates:open", "p:gates:openRepos", "p:issue:octo/demo#7:gates"]);
  });

  it("the issue's hash and the keys under it", () => {
    expect([
      issueKey("p", ref),
      s.issues.key(ref),
      notesKey("p", ref),
      s.rounds.spawnsKey(ref),
      IssueRounds.spawnField("j1"),
      s.rounds.roundsDoneKey(ref),
      s.rounds.roundTimesKey(ref),
    ]).toEqual([
      "p:issue:octo/demo#7",
      "p:issue:octo/demo#7",
      "p:issue:octo/demo#7:notes",
      "p:issue:octo/demo#7:spawns",
      "spawn:j1",
      "p:issue:octo/demo#7:done",
      "p:issue:octo/demo#7:roundTimes",
    ]);
    expect([s.statusLog.logKey(ref), s.statusLog.pendingKey(ref), s.commentMarks.echoesKey(ref, 5)]).toEqual([
      "p:issue:octo/demo#7:status",
      "p:issue:octo/demo#7:statusPending",
      "p:issue:octo/demo#7:echoes:5",
    ]);
  });

  it("marks, caches, the write budget and the namespace", () => {
    expect([
      s.commentMarks.deletedKey("Octo/Demo", 5),
      s.commentMarks.onceKey("help:x"),
      s.accessCache.teamMemberKey("Org/Team", "Alice"),
      s.accessCache.permissionKey("Octo/Demo", "Alice"),
      s.slackMessages.messageKey("42"),
    ]).toEqual(["p:deleted:octo/demo:5", "p:once:help:x", "p:team:org/team:alice", "p:perm:octo/demo:alice", "p:mirror:slack:42"]);
    expect([s.writeBudgetLog.writesKey(3), s.writeBudgetLog.nextWakeKey(3), s.writeBudgetLog.pausesKey(), s.writeBudgetLog.strikesKey(3)]).toEqual([
      "p:github:writes:3",
      "p:github:wake:3",
      "p:github:paused",
      "p:github:strikes:3",
    ]);
    expect([epochKey("p"), s.namespaceMarks.lastReconcileKey(), s.namespaceMarks.lastFullReconcileKey(), controlChannel("p")]).toEqual([
      "p:epoch",
      "p:reconcile:last",
      "p:reconcile:lastFull",
      "p:control",
    ]);
  });
});
