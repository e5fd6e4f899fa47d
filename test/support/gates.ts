import type { AskInput, Gate, NewGate } from "../../src/domain.js";
import { validateAsk } from "../../src/protocol/ask.js";

/** A gate as the store returns it, with readable defaults; `ask` is validated like a real one. */
export function gateFixture(over: Partial<Omit<Gate, "ask">> & { ask?: Partial<AskInput> } = {}): Gate {
  const { ask, ...rest } = over;
  const id = rest.id ?? "4711";
  const repo = rest.repo ?? "acme/widgets";
  const issue = rest.issue ?? 12;
  return {
    id,
    repo,
    issue,
    installationId: 1,
    round: 0,
    askedAt: Date.parse("2025-01-01T12:00:00Z"),
    askedBy: "escalation[bot]",
    askUrl: `https://github.com/${repo}/issues/${issue}#issuecomment-${id}`,
    state: "open",
    answers: [],
    ...rest,
    ask: validateAsk({
      v: 1,
      id: "askid123456",
      round: 0,
      questions: [{ text: "Which database should the cache use?", options: ["Postgres", "SQLite"], default: "SQLite" }],
      ...ask,
    }),
  };
}

/** The same gate as GateRecords.openGate takes it. */
export function newGate(gate: Gate): NewGate {
  return {
    id: gate.id,
    repo: gate.repo,
    issue: gate.issue,
    installationId: gate.installationId,
    round: gate.round,
    ask: gate.ask,
    askedAt: gate.askedAt,
    askedBy: gate.askedBy,
    askUrl: gate.askUrl,
    ...(gate.answerers ? { answerers: gate.answerers } : {}),
    ...(gate.approvalRule ? { approvalRule: gate.approvalRule } : {}),
  };
}
