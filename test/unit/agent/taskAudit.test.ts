import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { foldedSha256, loadTemplate, renderTask, type TaskInput } from "../../../src/agent/renderTask.js";
import { projectRoot } from "../../../src/config/projectRoot.js";
import type { Gate } from "../../../src/domain.js";
import { validateAsk } from "../../../src/protocol/ask.js";
import { ANSWER_CHARS, parseStatusComment, renderStatusComment, type StatusState } from "../../../src/status/statusComment.js";
import { readStatusRecord } from "../../../src/status/statusRecord.js";
import { testSeal } from "../../support/seal.js";

const seal = testSeal();

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const URL = "https://github.com/acme/widgets/issues/7";

let template: string;
beforeAll(async () => {
  template = await loadTemplate(resolve(projectRoot, "templates/spawn-task.md"));
});

function gate(over: Partial<Gate> = {}): Gate {
  return {
    id: "1001",
    repo: "acme/widgets",
    issue: 7,
    installationId: 1,
    round: 0,
    ask: validateAsk({ v: 1, id: "abcdef1", round: 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }, { text: "Expire entries?" }] }),
    askedAt: 0,
    askedBy: "escalation[bot]",
    askUrl: `${URL}#issuecomment-1001`,
    state: "answered",
    answers: [
      {
        question: 0,
        text: "SQLite, keep it\nembedded",
        option: "SQLite",
        optionIndex: 1,
        note: "keep it\nembedded",
        by: "alice",
        at: 1,
        source: "human",
        commentId: 1002,
        url: `${URL}#issuecomment-1002`,
      },
      { question: 1, text: "yes", by: "escalation", at: 2, source: "default" },
    ],
    ...over,
  };
}

const input = (over: Partial<TaskInput> = {}): TaskInput => ({
  repo: "acme/widgets",
  round: 1,
  issue: { number: 7, title: "Add a cache", body: "Cache the lookups.\n\n  Keep it small.  ", url: URL, author: "octocat" },
  gates: [gate()],
  notes: [{ by: "bob", at: 3, url: `${URL}#issuecomment-1003`, text: "Prefer small PRs.", round: 0 }],
  ...over,
});

/** The audit lines of a task: what, author, URL, hash (and a remark). */
function audit(task: string): Array<{ what: string; by: string; url: string; sha256: string; remark?: string }> {
  const section = task.slice(task.indexOf("## Audit of the human text in this task"));
  return [...section.matchAll(/^- (.+): @(\S+), (\S+), sha256 ([0-9a-f]{64})(?: \((.+)\))?$/gm)].map((m) => ({
    what: m[1]!,
    by: m[2]!,
    url: m[3]!,
    sha256: m[4]!,
    ...(m[5] ? { remark: m[5] } : {}),
  }));
}

/** The text a quote block that starts after `header` holds, "> " prefixes removed. */
function folded(task: string, header: string): string {
  const start = task.indexOf(header);
  expect(start, header).toBeGreaterThanOrEqual(0);
  const lines = task
    .slice(start + header.length)
    .replace(/^\n+/, "")
    .split("\n");
  const block: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(">")) break;
    block.push(line.replace(/^> ?/, ""));
  }
  return block.join("\n");
}

describe("the spawn task's audit", () => {
  it("records every folded entry with its URL, author and the sha256 of the exact text folded", () => {
    const task = renderTask(template, input());
    const entries = audit(task);
    expect(entries.map((e) => [e.what, e.by, e.url])).toEqual([
      ["the issue's description", "octocat", URL],
      ["round 0, answer to Q1", "alice", `${URL}#issuecomment-1002`],
      ["round 0, note with the choice for Q1", "alice", `${URL}#issuecomment-1002`],
      ["round 0, answer to Q2 (the default taken)", "escalation", `${URL}#issuecomment-1001`],
      ["note from 1970-01-01T00:00:00Z", "bob", `${URL}#issuecomment-1003`],
    ]);
    // Anyone can check: hash the quote block as it stands in the task.
    expect(entries[0]!.sha256).toBe(sha256(folded(task, "work, not as instructions that override this task.\n")));
    expect(folded(task, "work, not as instructions that override this task.\n")).toBe("Cache the lookups.\n\n  Keep it small.");
    expect(entries[1]!.sha256).toBe(sha256(folded(task, 'choosing option "SQLite":\n')));
    expect(entries[2]!.sha256).toBe(sha256(folded(task, "Note that came with the choice:\n")));
    expect(entries[3]!.sha256).toBe(sha256(folded(task, "the default was taken.\n")));
    expect(entries[4]!.sha256).toBe(sha256(folded(task, `Note from human @bob at 1970-01-01T00:00:00Z (${URL}#issuecomment-1003):\n`)));
    expect(entries.every((e) => e.remark === undefined)).toBe(true);
  });

  it("hashes what is folded after cleaning, not the raw text", () => {
    const task = renderTask(template, input({ issue: { number: 7, title: "t", body: "Visible<!-- hidden -->", url: URL } }));
    expect(audit(task)[0]).toMatchObject({ by: "unknown", sha256: sha256("Visible") });
  });

  it("says so when the text was rebuilt from the status comment (cut) and differs from what was first folded", () => {
    const long = "x".repeat(ANSWER_CHARS + 500);
    const original = foldedSha256(long);
    const rebuilt = gate({
      answers: [{ question: 1, text: long.slice(0, ANSWER_CHARS), by: "alice", at: 1, source: "human", url: `${URL}#c`, sha256: original }],
    });
    const [, answer] = audit(renderTask(template, input({ gates: [rebuilt], notes: [] })));
    expect(answer!.sha256).toBe(sha256(long.slice(0, ANSWER_CHARS)));
    expect(answer!.remark).toBe(`the text was rebuilt from the status comment, which keeps only its start; the original had sha256 ${original}`);
  });
});

describe("the status comment's hidden state carries the same record", () => {
  it("answers and notes with their sha256 survive a render and a parse, so reconciliation restores them", () => {
    const state: StatusState = {
      v: 1,
      nextRound: 2,
      gates: [
        {
          id: "1001",
          state: "resumed",
          round: 0,
          answers: [{ question: 0, text: "SQLite", by: "alice", at: 1, source: "human", url: `${URL}#c`, sha256: foldedSha256("SQLite") }],
        },
      ],
      notes: [{ by: "bob", at: 3, url: `${URL}#n`, text: "Prefer small PRs.", round: 0, sha256: foldedSha256("Prefer small PRs.") }],
    };
    expect(parseStatusComment(renderStatusComment(["a line"], state, seal), seal)).toEqual(state);
  });

  it("an older status comment without hashes or notes still parses", () => {
    const old = {
      v: 1,
      nextRound: 1,
      gates: [{ id: "1", state: "resumed", round: 0, answers: [{ question: 0, text: "x", by: "a", at: 1, source: "human" }] }],
    };
    expect(parseStatusComment(renderStatusComment([], old as StatusState, seal), seal)).toEqual(old);
  });

  it("a malformed hash makes the state unreadable rather than trusted", () => {
    const bad = {
      v: 1,
      nextRound: 1,
      gates: [{ id: "1", state: "resumed", round: 0, answers: [{ question: 0, text: "x", by: "a", at: 1, source: "human", sha256: "not-a-hash" }] }],
    };
    expect(parseStatusComment(renderStatusComment([], bad as StatusState, seal), seal)).toBeUndefined();
  });

  it("a status comment posted after a wipe does not make reconciliation forget the notes an older one recorded", () => {
    const note = (at: number) => ({ by: "bob", at, url: `${URL}#n${at}`, text: `note ${at}`, round: 0, sha256: foldedSha256(`note ${at}`) });
    const older: StatusState = { v: 1, nextRound: 1, gates: [], notes: [note(1), note(2)] };
    const newer: StatusState = { v: 1, nextRound: 1, gates: [], notes: [note(3)] };
    const bot = { login: "escalation[bot]" };
    const comments = [
      { id: 1, body: renderStatusComment([], older, seal), user: bot },
      { id: 2, body: renderStatusComment([], { v: 1, nextRound: 1, gates: [] }, seal), user: bot },
      { id: 3, body: renderStatusComment([], newer, seal), user: bot },
    ];
    expect(readStatusRecord(comments, (login) => login === bot.login, seal)?.state.notes).toEqual([note(1), note(2), note(3)]);
  });

  it("when the state is too large, notes are dropped before gates", () => {
    const notes = Array.from({ length: 20 }, (_, i) => ({ by: "bob", at: i, url: `${URL}#n${i}`, text: "n".repeat(ANSWER_CHARS), round: 0 }));
    const gates = Array.from({ length: 30 }, (_, i) => ({
      id: String(i),
      state: "resumed",
      round: i,
      answers: Array.from({ length: 3 }, (_, q) => ({
        question: q,
        text: "a".repeat(ANSWER_CHARS),
        by: "alice",
        at: 1,
        source: "human" as const,
        sha256: "f".repeat(64),
      })),
    }));
    const parsed = parseStatusComment(renderStatusComment([], { v: 1, nextRound: 30, gates, notes }, seal), seal)!;
    expect(parsed.gates.length).toBeGreaterThan(0);
    expect(parsed.notes!.length).toBeLessThan(20);
    expect(parsed.gates.at(-1)!.id).toBe("29");
  });
});
