import { z } from "zod";
import { APPROVAL_POLICIES } from "../domain.js";
import { ProtocolError } from "../errors.js";
import { formatDuration } from "../protocol/duration.js";
import { readSignedMarker, renderSignedMarker, type MarkerSeal } from "../protocol/marker.js";

/**
 * The app's one status comment per issue: a readable log for people, and a hidden state marker
 * recording each gate's outcome, so the issue alone is enough to rebuild what Redis held.
 */
/** Answer texts longer than this are cut in the hidden state (the comment has a size limit). */
export const ANSWER_CHARS = 1000;
/** The newest notes kept in the hidden state. */
export const MAX_NOTES = 20;
/** The newest rounds kept in the hidden state and shown in the table. */
export const MAX_ROUNDS_SHOWN = 50;
const SHA256 = z.string().regex(/^[0-9a-f]{64}$/);

export const StatusStateSchema = z.object({
  v: z.literal(1),
  /**
   * The comment this record was written into, and its place in the issue's renders (higher is
   * newer): a copy elsewhere, or an older render put back in place of a newer one, is not the app's
   * current record (src/status/statusRecord.ts). Absent in records of earlier versions.
   */
  comment: z.number().int().positive().optional(),
  seq: z.number().int().nonnegative().optional(),
  nextRound: z.number().int().nonnegative(),
  gates: z
    .array(
      z.object({
        id: z.string().max(40),
        state: z.string().max(20),
        round: z.number().int().nonnegative(),
        answeredBy: z.string().max(100).optional(),
        answeredAt: z.number().optional(),
        answerCommentId: z.number().int().optional(),
        /** Why a gate closed without a resume (superseded: edited, new commits…), for the reply to a late answer. */
        reason: z.string().max(200).optional(),
        /** What was folded into the task, so a rebuilt history is the same history. */
        answers: z
          .array(
            z.object({
              question: z.number().int().nonnegative(),
              text: z.string().max(ANSWER_CHARS + 1),
              option: z.string().max(300).optional(),
              optionIndex: z.number().int().nonnegative().optional(),
              note: z
                .string()
                .max(ANSWER_CHARS + 1)
                .optional(),
              by: z.string().max(100),
              at: z.number(),
              source: z.enum(["human", "default"]),
              url: z.string().max(2048).optional(),
              /** The file and line of the review comment that gave it. */
              about: z
                .object({ path: z.string().max(1024), line: z.number().int().positive().optional(), side: z.enum(["LEFT", "RIGHT"]).optional() })
                .optional(),
              /** SHA-256 of the whole text as folded into the task (before any cut here): the audit record. */
              sha256: SHA256.optional(),
              /** Its comment was deleted by this account, not its author: the answer stands. */
              deletedBy: z.string().max(100).optional(),
              /** An approval gate's outcome and the votes that decided it. */
              approval: z
                .object({
                  outcome: z.enum(["approved", "denied"]),
                  required: z.number().int().positive(),
                  policy: z.enum(APPROVAL_POLICIES),
                  votes: z
                    .array(
                      z.object({
                        login: z.string().max(100),
                        vote: z.enum(["approve", "deny"]),
                        at: z.number(),
                        commentId: z.number().int(),
                        url: z.string().max(2048).optional(),
                        note: z
                          .string()
                          .max(ANSWER_CHARS + 1)
                          .optional(),
                      }),
                    )
                    .max(50),
                })
                .optional(),
            }),
          )
          .max(20),
        /** Answers whose comment was deleted: who, when, which questions; never their text. */
        withdrawn: z
          .array(z.object({ by: z.string().max(100), at: z.number(), questions: z.array(z.number().int().nonnegative()).max(20) }))
          .max(20)
          .optional(),
      }),
    )
    .max(200),
  /** The humans' /note guidance folded into every task, with the same audit record. */
  notes: z
    .array(
      z.object({
        by: z.string().max(100),
        at: z.number(),
        url: z.string().max(2048),
        text: z.string().max(ANSWER_CHARS + 1),
        round: z.number().int().nonnegative(),
        sha256: SHA256.optional(),
        /** Its comment was deleted: no text, no hash. */
        withdrawn: z.literal(true).optional(),
        /** Its comment was deleted by this account, not its author: the note stands. */
        deletedBy: z.string().max(100).optional(),
      }),
    )
    .max(MAX_NOTES)
    .optional(),
  /** Each round's human wait (ask → answer) and agent run time (spawn → exit), kept apart. */
  rounds: z
    .array(
      z.object({
        round: z.number().int().nonnegative(),
        startedAt: z.number(),
        runMs: z.number().nonnegative(),
        outcome: z.enum(["success", "failure", "timeout", "stopped"]),
        gate: z.string().max(40).optional(),
        waitMs: z.number().nonnegative().optional(),
        answeredBy: z.string().max(100).optional(),
      }),
    )
    .max(MAX_ROUNDS_SHOWN)
    .optional(),
});
export type StatusState = z.infer<typeof StatusStateSchema>;

const MAX_LINES = 60;
const MAX_LINE_CHARS = 4000;
/** GitHub refuses comment bodies over 65,536 characters; keep a margin for the headings. */
const MAX_BODY_CHARS = 65_000;

/**
 * The newest log lines that fit beside the hidden state, each cut to a readable length. Without a
 * seal, no hidden state: what the app posts first, before it knows the comment's id to bind it to.
 */
export function renderStatusComment(lines: readonly string[], state: StatusState, seal: MarkerSeal | undefined): string {
  const marker = seal ? renderStateWithin(state, seal) : "";
  let budget = MAX_BODY_CHARS - marker.length - 200;
  const shown: string[] = [];
  for (const line of [...lines].reverse()) {
    const entry = `- ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} …` : line}`;
    if (shown.length >= MAX_LINES || entry.length + 1 > budget) break;
    shown.unshift(entry);
    budget -= entry.length + 1;
  }
  const out = ["### 🤖 Escalation status", "", ...roundTable(state.rounds ?? [])];
  if (lines.length > shown.length) out.push(`_${lines.length - shown.length} earlier entries omitted._`, "");
  out.push(...shown, ...(marker ? ["", marker] : []));
  return out.join("\n");
}

const OUTCOME: Record<string, string> = { success: "finished", failure: "failed", timeout: "timed out", stopped: "stopped" };

/** Human time is not agent time: per round, how long people took to answer and how long the agent ran. */
function roundTable(rounds: NonNullable<StatusState["rounds"]>): string[] {
  if (rounds.length === 0) return [];
  const wait = (r: (typeof rounds)[number]) => {
    if (r.waitMs === undefined) return "— (dispatched)";
    const who = r.answeredBy === "escalation" ? "the defaults, at timeout" : r.answeredBy ? `@${r.answeredBy}` : "unknown";
    return `${formatDuration(r.waitMs / 1000)} (${who})`;
  };
  const humanMs = rounds.reduce((sum, r) => sum + (r.waitMs ?? 0), 0);
  const agentMs = rounds.reduce((sum, r) => sum + r.runMs, 0);
  return [
    "| Round | Human wait (ask → answer) | Agent run (spawn → exit) |",
    "| --- | --- | --- |",
    ...rounds.map((r) => `| ${r.round} | ${wait(r)} | ${formatDuration(r.runMs / 1000)}, ${OUTCOME[r.outcome]} |`),
    `| **all** | **${formatDuration(humanMs / 1000)}** | **${formatDuration(agentMs / 1000)}** |`,
    "",
  ];
}

/**
 * Keeps the newest notes, then the newest gates, when the whole history would not fit in one
 * comment: the gates are what reconciliation cannot do without.
 */
function renderStateWithin(state: StatusState, seal: MarkerSeal): string {
  let { gates, notes } = state;
  for (;;) {
    try {
      return renderSignedMarker("status", { ...state, gates, ...(notes ? { notes } : {}) }, seal);
    } catch (error) {
      if (!(error instanceof ProtocolError) || (gates.length === 0 && !notes?.length)) throw error;
      if (notes?.length) notes = notes.slice(Math.ceil(notes.length / 2));
      else gates = gates.slice(Math.ceil(gates.length / 2));
    }
  }
}

/** What a comment's status marker is worth to a rebuild: only a valid one is the app's record. */
export type StatusReading =
  | { outcome: "absent" }
  | { outcome: "valid"; state: StatusState }
  | { outcome: "unsigned" }
  | { outcome: "mismatching" }
  /** Signed by the app, but not a state this version reads. */
  | { outcome: "unreadable" };

export function readStatusComment(body: string, seal: MarkerSeal): StatusReading {
  const reading = readSignedMarker(body, "status", seal);
  if (reading.outcome !== "valid") return reading;
  const parsed = StatusStateSchema.safeParse(reading.payload);
  return parsed.success ? { outcome: "valid", state: parsed.data } : { outcome: "unreadable" };
}

/** The app's signed state in a status comment, or undefined (none, unsigned, mismatching or unreadable). */
export function parseStatusComment(body: string, seal: MarkerSeal): StatusState | undefined {
  const reading = readStatusComment(body, seal);
  return reading.outcome === "valid" ? reading.state : undefined;
}
