// Markers the blockquote pass turns into "> " lines; control characters, so none survives the
// first stripHiddenCharacters pass.
export const QUOTE_OPEN = "\u0001";
export const QUOTE_CLOSE = "\u0002";

/** Text inside `<blockquote>` becomes "> " lines, like a Markdown quote. */
export function applyBlockquotes(s: string): string {
  if (!s.includes(QUOTE_OPEN) && !s.includes(QUOTE_CLOSE)) return s;
  const lines: string[] = [];
  let line = "";
  let quoted = false;
  let depth = 0;
  const endLine = () => {
    lines.push(quoted && line.trim() !== "" ? `> ${line}` : line);
    line = "";
    quoted = depth > 0;
  };
  for (const char of s) {
    if (char === QUOTE_OPEN || char === QUOTE_CLOSE) {
      if (line.trim() !== "") endLine();
      depth = Math.max(0, depth + (char === QUOTE_OPEN ? 1 : -1));
      quoted = depth > 0;
      line = "";
    } else if (char === "\n") {
      endLine();
    } else {
      if (depth > 0) quoted = true;
      line += char;
    }
  }
  endLine();
  return lines.join("\n");
}
