import { describe, expect, it } from "vitest";
import type { InstallationOctokit } from "../../../src/github/octokit.js";
import { labelTakenOff, type LabelPorts } from "../../../src/gates/labelTakenOff.js";
import type { InboundEvent } from "../../../src/payloads.js";
import { common, FakeFeedback, FakeRecords, gate, quietLog, settings } from "../../support/gateFakes.js";

type Unlabeled = Extract<InboundEvent, { kind: "unlabeled" }>;

/** labelTakenOff against in-memory ports; GitHub's label list is `shown`, read through a fake installation client. */
function world(shown: string[] = []) {
  const records = new FakeRecords();
  const feedback = new FakeFeedback(records);
  const reads: string[] = [];
  const octokit = {
    paginate: (route: string) => {
      reads.push(route);
      return Promise.resolve(shown.map((name) => ({ name })));
    },
  } as unknown as InstallationOctokit;
  const ports: LabelPorts = {
    ...feedback.ports(),
    gates: records.gates,
    issues: records.issues,
    github: { installation: () => Promise.resolve(octokit) },
    log: quietLog,
  };
  return { records, feedback, reads, ports };
}

const unlabeled = (label = "awaiting-human"): Unlabeled => ({ ...common(), kind: "unlabeled", label, deliveryId: "d-unlabel" });

describe("labelTakenOff: a bot took the awaiting label off", () => {
  it("puts it back while a question waits, and records GitHub shows it off", async () => {
    const { records, feedback, ports } = world();
    records.add(gate({ id: "1001" }));
    await records.issues.setAwaitingLabel({ repo: "acme/widgets", issue: 7 }, "on");
    expect(await labelTakenOff(ports, unlabeled(), settings)).toEqual({ kind: "labelPutBack", gateId: "1001", while: "a question waits" });
    expect(feedback.writes).toEqual([{ key: "relabel-d-unlabel", ops: [{ type: "addLabel", label: "awaiting-human" }] }]);
    expect(await records.issues.awaitingLabel({ repo: "acme/widgets", issue: 7 })).toBe("off");
    expect(feedback.lines[0]).toContain("while gate 1001 waits");
  });

  it("puts it back for the round that took the answer only, while that round runs", async () => {
    const { records, feedback, ports } = world();
    records.add(gate({ id: "1001", state: "resuming" }));
    expect(await labelTakenOff(ports, unlabeled(), settings)).toEqual({ kind: "labelPutBack", gateId: "1001", while: "the answered round runs" });
    expect(feedback.writes.flatMap((w) => w.ops)).toEqual([{ type: "addLabel", label: "awaiting-human", whileRound: "1001" }]);
  });

  it("leaves it off once the round ended or when no question was ever asked", async () => {
    for (const state of ["resumed", "cancelled", "superseded"] as const) {
      const { records, feedback, ports } = world();
      records.add(gate({ id: "1001", state }));
      expect(await labelTakenOff(ports, unlabeled(), settings)).toEqual({ kind: "ignored", reason: "no question waits and no round that took an answer runs" });
      expect(feedback.writes).toEqual([]);
    }
    expect(await labelTakenOff(world().ports, unlabeled(), settings)).toEqual({
      kind: "ignored",
      reason: "no question waits and no round that took an answer runs",
    });
  });

  it("is the app's own removal when its record says it took the label off or is taking it off", async () => {
    for (const recorded of ["off", "leaving"] as const) {
      const { records, feedback, reads, ports } = world();
      records.add(gate({ id: "1001" }));
      await records.issues.setAwaitingLabel({ repo: "acme/widgets", issue: 7 }, recorded);
      expect(await labelTakenOff(ports, unlabeled(), settings)).toEqual({ kind: "ignored", reason: "the app took it off" });
      expect([feedback.writes, reads]).toEqual([[], []]);
    }
  });

  it("does nothing when GitHub shows the label on again (read, case-insensitively), or for any other label", async () => {
    const again = world(["bug", "Awaiting-Human"]);
    again.records.add(gate({ id: "1001" }));
    expect(await labelTakenOff(again.ports, unlabeled(), settings)).toEqual({ kind: "ignored", reason: "the label is on again" });
    expect(again.reads).toEqual(["GET /repos/{owner}/{repo}/issues/{issue_number}/labels"]);
    expect(again.feedback.writes).toEqual([]);

    const other = world();
    other.records.add(gate({ id: "1001" }));
    expect(await labelTakenOff(other.ports, unlabeled("bug"), settings)).toEqual({ kind: "ignored", reason: "other label" });
    expect(other.feedback.writes).toEqual([]);
  });
});
