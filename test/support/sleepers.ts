import { readdirSync, readFileSync } from "node:fs";

/** Host pids of `sleep <mark>` processes: a test's marked leftovers, seen from outside any sandbox. */
export function sleepers(mark: string): number[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${mark}\0` ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}
