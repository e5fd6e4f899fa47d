/** Trims each line's end and collapses runs of blank lines. */
export function tidy(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      // Blank lines go from both ends, but the first line keeps its indentation: it may make it code.
      .replace(/^\n+/, "")
      .trimEnd()
  );
}
