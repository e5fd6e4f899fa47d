import type { RepoSettings } from "../../src/config/repoConfig.js";
import type { Ask, Gate, IssueRecord, NewGate, RecordedAnswer } from "../../src/domain.js";
import { LoopEvents, type LoopEventMap } from "../../src/events.js";
import type { FeedbackPorts } from "../../src/status/feedback.js";
import type { FeedbackOp, InboundEvent } from "../../src/payloads.js";
import type { RecordResult } from "../../src/store/gateRecords.js";

/**
 * In-memory fakes of the loop's narrow ports (the `*Ports` types of src/gates/): a transition runs
 * against them without Redis or GitHub, and a test reads back what it recorded and queued.
 */

interface Ref {
  repo: string;
  issue: number;
}
const keyOf = (ref: Ref) => `${ref.repo.toLowerCase()}#${ref.issue}`;

export const REPO = "acme/widgets";
export const ISSUE = 7;

export const settings: RepoSettings = {
  labels: { awaiting: "awaiting-human", dispatch: "agent" },
  answerers: { users: [], teams: [], minimumPermission: "write", from: "permission" },
  defaultTimeoutSeconds: undefined,
  maxAttempts: 3,
  maxRounds: 10,
  slackChannel: undefined,
  agentProfile: undefined,
  reminderLadder: [],
  approvals: { approvers: 1, policy: "any-deny" },
  workspace: { enabled: false, branch: "escalation/issue-{issue}", pullRequest: "app" },
};

export const ask = (text = "Which database?"): Ask => ({ v: 1, id: "ask-000001", kind: "question", round: 0, questions: [{ text, options: [] }] });

export function gate(over: Partial<Gate> = {}): Gate {
  return {
    id: "1001",
    repo: REPO,
    issue: ISSUE,
    installationId: 1,
    round: 0,
    ask: ask(),
    askedAt: Date.parse("2026-12-01T10:00:00Z"),
    askedBy: "escalation[bot]",
    askUrl: "https://github.test/acme/widgets/issues/7#issuecomment-1001",
    state: "open",
    answers: [],
    ...over,
  };
}

/** The fields every inbound event carries, on issue #7 of acme/widgets. */
export function common(over: { isPullRequest?: boolean; sender?: string } = {}) {
  return {
    deliveryId: "d-1",
    installationId: 1,
    repo: REPO,
    issue: {
      number: ISSUE,
      title: "Cache",
      body: "",
      url: "https://github.test/acme/widgets/issues/7",
      isPullRequest: over.isPullRequest ?? false,
      assignees: [],
      labels: [],
    },
    sender: { login: over.sender ?? "escalation[bot]", type: "Bot" },
    receivedAt: Date.parse("2026-12-01T11:00:00Z"),
  } satisfies Omit<InboundEvent, "kind">;
}

/** Gates and issue records as the Redis store keeps them: an issue's open gate is its newest gate while that is open. */
export class FakeRecords {
  readonly #gates = new Map<string, Gate>();
  readonly #order: string[] = [];
  readonly #labels = new Map<string, "on" | "off" | "leaving">();
  /** Set to make the next supersede or cancel lose its race (the gate settled meanwhile). */
  settleFirst = false;

  add(g: Gate): Gate {
    this.#gates.set(g.id, structuredClone(g));
    this.#order.push(g.id);
    return g;
  }

  readonly gates = {
    getGate: (id: string): Promise<Gate | undefined> => Promise.resolve(this.#copy(id)),
    lastGate: (ref: Ref): Promise<Gate | undefined> => Promise.resolve(this.#copy(this.#order.findLast((id) => keyOf(this.#gates.get(id)!) === keyOf(ref)))),
    supersedeGate: (g: Pick<Gate, "id">, reason: string): Promise<boolean> => Promise.resolve(this.#close(g.id, "superseded", reason)),
    /** As the store's script: answers merge by question; the last one answers the gate, once. */
    recordAnswer: (g: Pick<Gate, "id">, answers: RecordedAnswer[], by: string, commentId: number | string, at: number): Promise<RecordResult> => {
      const stored = this.#gates.get(g.id);
      if (!stored) return Promise.resolve({ outcome: "missing" });
      if (stored.state !== "open") {
        return Promise.resolve(
          stored.answerCommentId === commentId || commentId === ""
            ? { outcome: "same", state: stored.state, reopened: 0 }
            : { outcome: "taken", state: stored.state, answeredBy: stored.answeredBy ?? "" },
        );
      }
      const merged = [...stored.answers.filter((a) => !answers.some((n) => n.question === a.question)), ...answers];
      if (merged.length < stored.ask.questions.length) {
        this.#gates.set(g.id, { ...stored, answers: merged });
        return Promise.resolve({ outcome: "partial", answers: merged });
      }
      const recorded: Gate = {
        ...stored,
        answers: merged,
        state: "answered",
        answeredBy: by,
        answeredAt: at,
        ...(typeof commentId === "number" ? { answerCommentId: commentId } : {}),
      };
      this.#gates.set(g.id, recorded);
      return Promise.resolve({ outcome: "recorded", reopened: 0, gate: recorded });
    },
    openGate: (g: NewGate): Promise<{ opened: boolean; superseded?: string }> => {
      if (this.#gates.has(g.id)) return Promise.resolve({ opened: false });
      const before = this.#order.findLast((id) => keyOf(this.#gates.get(id)!) === keyOf(g) && this.#gates.get(id)!.state === "open");
      if (before) this.#close(before, "superseded", "a newer question was asked");
      this.add({ ...g, state: "open", answers: [] });
      return Promise.resolve(before ? { opened: true, superseded: before } : { opened: true });
    },
  };

  readonly issues = {
    getIssue: (ref: Ref): Promise<IssueRecord | undefined> => {
      const open = this.#order.findLast((id) => keyOf(this.#gates.get(id)!) === keyOf(ref) && this.#gates.get(id)!.state === "open");
      return Promise.resolve({
        repo: ref.repo,
        issue: ref.issue,
        installationId: 1,
        title: "Cache",
        body: "",
        url: "",
        assignees: [],
        state: "open",
        nextRound: 1,
        ...(open ? { openGate: open } : {}),
      });
    },
    awaitingLabel: (ref: Ref): Promise<"on" | "off" | "leaving" | undefined> => Promise.resolve(this.#labels.get(keyOf(ref))),
    setAwaitingLabel: (ref: Ref, value: "on" | "off" | "leaving"): Promise<void> => {
      this.#labels.set(keyOf(ref), value);
      return Promise.resolve();
    },
  };

  #copy(id: string | undefined): Gate | undefined {
    const g = id === undefined ? undefined : this.#gates.get(id);
    return g && structuredClone(g);
  }

  #close(id: string, state: "superseded" | "cancelled", reason: string): boolean {
    const g = this.#gates.get(id);
    if (g?.state !== "open" || this.settleFirst) return false;
    this.#gates.set(id, { ...g, state, closedReason: reason });
    return true;
  }
}

/** The issue's feedback as sendFeedback leaves it: status lines, and the GitHub writes queued (status renders left out). */
export class FakeFeedback {
  readonly lines: string[] = [];
  readonly writes: Array<{ key: string; ops: FeedbackOp[] }> = [];

  constructor(private readonly records: FakeRecords) {}

  ports(): FeedbackPorts {
    return {
      config: { statusDebounceMs: 1000 },
      statusLog: {
        // Stored as "<time> · <line>": the line is what the tests read.
        appendStatusLine: (_ref, line) => Promise.resolve(this.lines.push(line.replace(/^\S+ · /, ""))),
        markStatusPending: () => Promise.resolve(true),
      },
      issues: { getIssue: (ref) => this.records.issues.getIssue(ref) },
      queues: {
        feedback: {
          add: (_target, ops, key) => {
            if (!ops.every((op) => op.type === "status")) this.writes.push({ key, ops: [...ops] });
            return Promise.resolve(true);
          },
        },
      },
    };
  }
}

/** The observers' channel, recording what was notified. */
export function recordedEvents(): { events: LoopEvents; seen: Array<{ name: keyof LoopEventMap; args: unknown }> } {
  const events = new LoopEvents((error) => {
    throw error;
  });
  const seen: Array<{ name: keyof LoopEventMap; args: unknown }> = [];
  for (const name of ["gate.opened", "gate.closed", "gate.answered"] as const) events.on(name, (args: unknown) => seen.push({ name, args }));
  return { events, seen };
}

/** A logger that keeps nothing. */
export const quietLog = { info: () => undefined, warn: () => undefined, debug: () => undefined };
