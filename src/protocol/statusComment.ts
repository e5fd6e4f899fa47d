import { z } from "zod";
import { findMarker, renderMarker } from "./marker.js";

/**
 * The app's one status comment per issue: a readable log for people, and a hidden state marker
 * recording each gate's outcome, so the issue alone is enough to rebuild what Redis held.
 */
export const StatusStateSchema = z.object({
  v: z.literal(1),
  nextRound: z.number().int().nonnegative(),
  gates: z
    .array(
      z.object({
        id: z.string().max(40),
        state: z.string().max(20),
        answeredBy: z.string().max(100).optional(),
        answerCommentId: z.number().int().optional(),
      }),
    )
    .max(500),
});
export type StatusState = z.infer<typeof StatusStateSchema>;

const MAX_LINES = 60;

export function renderStatusComment(lines: readonly string[], state: StatusState): string {
  const shown = lines.length > MAX_LINES ? lines.slice(-MAX_LINES) : lines;
  const out = ["### 🤖 Escalation status", ""];
  if (lines.length > shown.length) out.push(`_${lines.length - shown.length} earlier entries omitted._`, "");
  out.push(...shown.map((line) => `- ${line}`));
  out.push("", renderMarker("status", state));
  return out.join("\n");
}

export function parseStatusComment(body: string): StatusState | undefined {
  const payload = findMarker(body, "status");
  if (payload === undefined) return undefined;
  const parsed = StatusStateSchema.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}
