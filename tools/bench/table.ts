/** A GitHub-flavoured Markdown table, columns padded so it also reads well in a terminal. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[], align: readonly ("l" | "r")[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length), 3));
  const pad = (text: string, i: number) => (align[i] === "r" ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => pad(c, i)).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === "r" ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [line(headers), rule, ...rows.map((r) => line(headers.map((_, i) => r[i] ?? "")))].join("\n");
}

/** A number with a sensible precision for tables: 3 significant digits below 100, integers above. */
export function fmt(value: number, unit = ""): string {
  if (!Number.isFinite(value)) return "n/a";
  const abs = Math.abs(value);
  if (Number.isInteger(value)) return unit ? `${value.toLocaleString("en-US")} ${unit}` : value.toLocaleString("en-US");
  const text = abs >= 100 ? Math.round(value).toLocaleString("en-US") : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
  return unit ? `${text} ${unit}` : text;
}
