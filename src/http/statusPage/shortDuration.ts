import { formatDuration } from "../../protocol/duration.js";

/** "1d 2h", "5m": the two largest units (the page's script has the same function). */
export function shortDuration(totalSeconds: number): string {
  return formatDuration(Math.abs(totalSeconds)).split(" ").slice(0, 2).join(" ");
}
