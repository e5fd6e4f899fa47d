import { z } from "zod";
import { formatDuration } from "./duration.js";
import { readSignedMarker, renderSignedMarker, type MarkerSeal } from "./marker.js";

/**
 * The comments of the reminder ladder (README, "Reminders that escalate"). Each carries a small
 * hidden marker naming its gate and step, so a rebuild after Redis loss knows which steps the issue
 * already shows and posts none of them twice.
 */
const LadderMarkerSchema = z.object({ v: z.literal(1), gate: z.string().min(1).max(64), step: z.number().int().nonnegative().max(20) });
export type LadderMarker = z.infer<typeof LadderMarkerSchema>;

export interface ReminderInput {
  gateId: string;
  step: number;
  /** "@alice @acme/oncall"-style handles; empty when nobody could be named. */
  people: string[];
  questions: string[];
  waitedSeconds: number;
  askUrl: string;
}

const quoteQuestions = (questions: readonly string[]) => questions.map((q) => `**${q}**`).join(", ");

export function renderReminderComment(input: ReminderInput, seal: MarkerSeal): string {
  const who = input.people.length > 0 ? ` for ${input.people.join(" ")}` : "";
  return [
    `⏰ Reminder${who}: the agent has been waiting ${formatDuration(input.waitedSeconds)} for an answer to ${quoteQuestions(input.questions)} ([the question](${input.askUrl})). Reply on this issue to answer it.`,
    renderSignedMarker("ladder", { v: 1, gate: input.gateId, step: input.step } satisfies LadderMarker, seal),
  ].join("\n\n");
}

export interface OverdueInput {
  gateId: string;
  step: number;
  questions: string[];
  /** When the ladder ran out (ISO, whole seconds). */
  at: string;
  askUrl: string;
}

export function renderOverdueComment(input: OverdueInput, seal: MarkerSeal): string {
  return [
    `⏰ No answer by ${input.at}: ${quoteQuestions(input.questions)} ([the question](${input.askUrl})) is now **overdue**. It has no default to take, so nothing proceeds until someone answers; the gate is listed as overdue on the status page.`,
    renderSignedMarker("ladder", { v: 1, gate: input.gateId, step: input.step } satisfies LadderMarker, seal),
  ].join("\n\n");
}

/** What a comment's ladder marker is worth: only a valid one records a step the app posted. */
export type LadderReading = { outcome: "absent" | "unsigned" | "mismatching" | "unreadable" } | { outcome: "valid"; marker: LadderMarker };

export function readLadderMarker(body: string, seal: MarkerSeal): LadderReading {
  const reading = readSignedMarker(body, "ladder", seal);
  if (reading.outcome !== "valid") return reading;
  const parsed = LadderMarkerSchema.safeParse(reading.payload);
  return parsed.success ? { outcome: "valid", marker: parsed.data } : { outcome: "unreadable" };
}
