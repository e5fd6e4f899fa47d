import type { HiddenChars, StrippedCounts } from "./strippedCounts.js";

/**
 * Removes `<!-- ... -->` in one linear pass; an unterminated comment runs to the end. Checking
 * the output (not the input) for "<!--" also catches an opener assembled from the pieces around a
 * removed comment, e.g. "<!<!-- x -->--".
 */
export function removeComments(text: string, stripped: StrippedCounts, hidden: HiddenChars): string {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    out.push(text[i]!);
    i += 1;
    const n = out.length;
    if (n >= 4 && out[n - 4] === "<" && out[n - 3] === "!" && out[n - 2] === "-" && out[n - 1] === "-") {
      out.length = n - 4;
      stripped.htmlComments += 1;
      const end = text.indexOf("-->", i);
      const stop = end === -1 ? text.length : end + 3;
      hidden.chars += 4 + stop - i;
      i = stop;
    }
  }
  return out.join("");
}
