import { z } from "zod";
import { readSignedMarker, renderSignedMarker, type MarkerSeal } from "./marker.js";

/**
 * The visible note a rebuild posts once per comment that carries state under the app's name the
 * app did not sign (README, "Signed state"). Its own signed marker names that comment, so a
 * rebuild after another Redis wipe sees it was already said; a forged note does not verify, is
 * itself ignored, and cannot silence one.
 */
const NoticeSchema = z.object({ v: z.literal(1), ignored: z.number().int().positive() });

export type IgnoredWhy = "unsigned" | "mismatching";

const WHY: Record<IgnoredWhy, string> = {
  unsigned: "it carries no signature (written by someone else, or by an app version before signing)",
  mismatching: "its signature does not match (edited, or copied from elsewhere)",
};

export function renderIgnoredNotice(comment: { id: number; url: string }, why: IgnoredWhy, seal: MarkerSeal): string {
  return [
    `⚠️ A comment under the app's name carries state the app did not write ([comment](${comment.url})): ${WHY[why]}. It was ignored; the app rebuilt this issue from the questions and replies instead.`,
    renderSignedMarker("notice", { v: 1, ignored: comment.id }, seal),
  ].join("\n\n");
}

/** The comment id a signed notice of the app reports, or undefined for anything else. */
export function noticedComment(body: string, seal: MarkerSeal): number | undefined {
  const reading = readSignedMarker(body, "notice", seal);
  if (reading.outcome !== "valid") return undefined;
  const parsed = NoticeSchema.safeParse(reading.payload);
  return parsed.success ? parsed.data.ignored : undefined;
}
