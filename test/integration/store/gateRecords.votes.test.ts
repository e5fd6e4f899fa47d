import { describe, expect, it } from "vitest";
import { validateAsk } from "../../../src/protocol/ask.js";
import { storeRedis } from "../../support/storeRedis.js";
import { gateId, newGate, withIssue } from "./support.js";

const { freshStore } = storeRedis();

describe("GateRecords: votes on an approval gate", () => {
  const approvalGate = () => {
    const id = gateId("approval");
    return newGate({ id, ask: validateAsk({ v: 1, id, kind: "approval", approvers: 2, round: 0, questions: [{ text: "Deploy?" }] }) });
  };
  const vote = (login: string, choice: "approve" | "deny", commentId: number) => ({ login, vote: choice, at: commentId, commentId });

  it("records each person once: a redelivery is 'same', the same vote again 'repeated', the other vote 'changed'", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.gates.openGate(gate);
    expect(await store.gates.recordVote(gate.id, vote("alice", "approve", 10))).toEqual({ outcome: "counted", votes: [vote("alice", "approve", 10)] });
    expect(await store.gates.recordVote(gate.id, vote("alice", "approve", 10))).toMatchObject({ outcome: "same", votes: [vote("alice", "approve", 10)] });
    expect(await store.gates.recordVote(gate.id, vote("Alice", "approve", 11))).toMatchObject({ outcome: "repeated", votes: [vote("alice", "approve", 10)] });
    expect(await store.gates.recordVote(gate.id, vote("bob", "approve", 12))).toMatchObject({
      outcome: "counted",
      votes: [vote("alice", "approve", 10), vote("bob", "approve", 12)],
    });
    expect(await store.gates.recordVote(gate.id, vote("alice", "deny", 13))).toMatchObject({
      outcome: "changed",
      votes: [vote("bob", "approve", 12), vote("alice", "deny", 13)],
    });
    expect(await store.gates.votes(gate.id)).toEqual([vote("bob", "approve", 12), vote("alice", "deny", 13)]);
  });

  it("many people voting at once are all recorded, each once", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.gates.openGate(gate);
    const people = Array.from({ length: 20 }, (_, i) => `user${i}`);
    await Promise.all(
      people.flatMap((login, i) => [
        store.gates.recordVote(gate.id, vote(login, "approve", 100 + i)),
        store.gates.recordVote(gate.id, vote(login, "approve", 200 + i)),
      ]),
    );
    const votes = await store.gates.votes(gate.id);
    expect(votes.map((v) => v.login).sort()).toEqual([...people].sort());
  });

  it("takes no vote once the gate is settled, or when it is gone", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.gates.openGate(gate);
    await store.gates.cancelGate(gate, "test");
    expect(await store.gates.recordVote(gate.id, vote("alice", "approve", 10))).toEqual({ outcome: "closed", state: "cancelled" });
    expect(await store.gates.votes(gate.id)).toEqual([]);
    expect(await store.gates.recordVote("no-such-gate", vote("alice", "approve", 10))).toEqual({ outcome: "missing" });
  });
});
