import { ConfigError } from "../errors.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * Parses "90s", "30m", "2h", "1d", "1h30m" or a bare number of seconds into seconds.
 * `what` names the flag or variable in the error so the user knows which value to fix.
 */
export function parseDuration(value: string, what: string): number {
  const text = value.trim().toLowerCase();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    if (seconds > 0) return seconds;
  }
  const parts = [...text.matchAll(/(\d+)\s*([smhdw])/g)];
  const joined = parts.map((p) => p[0]).join("");
  if (parts.length > 0 && joined.replace(/\s/g, "") === text.replace(/\s/g, "")) {
    const seconds = parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_SECONDS[p[2]!] ?? 0), 0);
    if (seconds > 0) return seconds;
  }
  throw new ConfigError(`${what} must be a positive duration like 90s, 30m, 2h or 1d (got ${JSON.stringify(value)}).`);
}

/** Renders seconds the way a person says it: "2h", "1h 30m", "45s". */
export function formatDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.round(totalSeconds));
  const out: string[] = [];
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      out.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return out.length > 0 ? out.join(" ") : "0s";
}
