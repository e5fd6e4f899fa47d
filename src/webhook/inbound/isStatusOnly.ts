import { findMarker } from "../../protocol/marker.js";

/**
 * A status comment's, reminder's or notice's body: a readable marker of the app's state and nothing that looks
 * like an ask marker (a broken ask is kept, so the loop can report it).
 */
export function isStatusOnly(body: string): boolean {
  try {
    return !body.includes("escalation:ask") && (["status", "ladder", "notice"] as const).some((kind) => findMarker(body, kind) !== undefined);
  } catch {
    return false;
  }
}
