/** "1d 2h", "5m": the two largest units (the page's script has the same function). */
export function shortDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.round(Math.abs(totalSeconds)));
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
  return out.length > 0 ? out.slice(0, 2).join(" ") : "0s";
}
