/**
 * The reminder-ladder steps an issue already shows, read from the app's signed ladder markers: a
 * rebuild marks them posted so the steps it reschedules post none of them twice.
 */
import type { MarkerSeal } from "../protocol/marker.js";
import { readLadderMarker } from "../protocol/reminders.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/** Per gate, the reminder-ladder steps whose comments the app posted on the issue. */
export function ladderStepsShown(
  comments: readonly Pick<ReplySnapshot, "body" | "user">[],
  isApp: (login: string) => boolean,
  seal: MarkerSeal,
): Map<string, number[]> {
  const shown = new Map<string, number[]>();
  for (const c of comments) {
    if (!c.user || !isApp(c.user.login) || !c.body) continue;
    const reading = readLadderMarker(c.body, seal);
    const marker = reading.outcome === "valid" ? reading.marker : undefined;
    if (marker) shown.set(marker.gate, [...(shown.get(marker.gate) ?? []), marker.step]);
  }
  return shown;
}
