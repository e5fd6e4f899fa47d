import { z } from "zod";
import { readSignedMarker, renderSignedMarker, type MarkerSeal } from "./marker.js";

/**
 * The visible note a rebuild posts on an issue whose comments under the app's name carry state the
 * app did not sign (README, "Signed state"): one note per rebuild that finds any it has not reported
 * yet, naming them all. Its own signed marker lists those comments, so a later rebuild (after another
 * Redis wipe too) sees they were already said; a forged note does not verify, is itself ignored, and
 * cannot silence one. Notes of earlier versions name one comment each, and are read too.
 */
/** The most comments one note names (its marker stays under MAX_MARKER_CHARS.notice); more wait for the next note. */
export const MAX_IGNORED_PER_NOTICE = 200;
const NoticeSchema = z.object({
  v: z.literal(1),
  ignored: z.union([z.number().int().positive(), z.array(z.number().int().positive()).min(1).max(MAX_IGNORED_PER_NOTICE)]),
});

export type IgnoredWhy = "unsigned" | "mismatching" | "replayed";

const WHY: Record<IgnoredWhy, string> = {
  unsigned: "carries no signature (written by someone else, or by an app version before signing)",
  mismatching: "has a signature that does not match (edited, or copied from elsewhere)",
  replayed: "repeats an older record of the app's (copied from where the app wrote it, or put back in place of a newer one)",
};

/** Links shown in one note; the rest are counted. */
const LINKS_SHOWN = 10;

export function renderIgnoredNotice(comments: ReadonlyArray<{ id: number; url: string; why: IgnoredWhy }>, seal: MarkerSeal): string {
  const listed = comments.slice(0, MAX_IGNORED_PER_NOTICE);
  const lines = listed.slice(0, LINKS_SHOWN).map((c) => `- [comment](${c.url}) ${WHY[c.why]}`);
  if (listed.length > LINKS_SHOWN) lines.push(`- and ${listed.length - LINKS_SHOWN} more`);
  const count = listed.length === 1 ? "A comment under the app's name carries" : `${listed.length} comments under the app's name carry`;
  return [
    `⚠️ ${count} state the app did not write. It was ignored; the app rebuilt this issue from the questions and replies instead.`,
    lines.join("\n"),
    renderSignedMarker("notice", { v: 1, ignored: listed.map((c) => c.id) }, seal),
  ].join("\n\n");
}

/** The comment ids a signed notice of the app reports (none for anything else). */
export function noticedComments(body: string, seal: MarkerSeal): number[] {
  const reading = readSignedMarker(body, "notice", seal);
  if (reading.outcome !== "valid") return [];
  const parsed = NoticeSchema.safeParse(reading.payload);
  if (!parsed.success) return [];
  return typeof parsed.data.ignored === "number" ? [parsed.data.ignored] : parsed.data.ignored;
}
