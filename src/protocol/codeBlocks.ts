/**
 * Which lines of a comment are inside a code block, as CommonMark (and so GitHub) renders them: a
 * fenced block (``` or ~~~, an unclosed fence running to the end) or an indented block (4 columns,
 * at the start or after a blank line, continuing through blank lines). A code line is shown as
 * written, so a `>` starting it (a Python REPL's `>>>`) is not a quote and no line of it ends a reply.
 */

// Up to 3 spaces, then 3 or more backticks (whose info string has none) or tildes.
const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const INDENTED = /^(?: {4}| {0,3}\t)/;

/** One flag per line: true when the line is inside (or fences) a code block. */
export function codeLineFlags(lines: readonly string[]): boolean[] {
  const flags: boolean[] = [];
  let fence: string | undefined;
  let indented = false;
  let afterBlank = true;
  for (const line of lines) {
    const blank = line.trim() === "";
    let code = false;
    if (fence !== undefined) {
      code = true;
      if (closesFence(line, fence)) fence = undefined;
    } else {
      const open = FENCE_OPEN.exec(line);
      if (open) {
        fence = open[1]!;
        code = true;
        indented = false;
      } else if (!blank && INDENTED.test(line) && (afterBlank || indented)) {
        code = true;
        indented = true;
      } else if (!blank) {
        indented = false;
      }
    }
    flags.push(code);
    afterBlank = blank;
  }
  return flags;
}

/** A closing fence: the same character, at least as long, up to 3 spaces before, nothing after. */
function closesFence(line: string, fence: string): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return match !== null && match[1]!.startsWith(fence[0]!) && match[1]!.length >= fence.length;
}
