import type { HiddenChars, StrippedCounts } from "./strippedCounts.js";

/** What an image (Markdown or `<img>`) is shown as, its alt text dropped. */
export const IMAGE_PLACEHOLDER = "[image]";

// `![alt](destination "title")`, `![alt][ref]` and `![alt]`: one level of nested brackets and
// parentheses, backslash escapes. Each alternative starts with a different character, so matching
// stays linear.
const BRACKETED = String.raw`\[((?:[^\[\]\\]|\\[\s\S]|\[(?:[^\[\]\\]|\\[\s\S])*\])*)\]`;
const DESTINATION = String.raw`\((?:[^()\\]|\\[\s\S]|\((?:[^()\\]|\\[\s\S])*\))*\)`;
const MARKDOWN_IMAGE = new RegExp(String.raw`!${BRACKETED}(?:${DESTINATION}|\[(?:[^\[\]\\]|\\[\s\S])*\])?`, "g");

/** Replaces each Markdown image with "[image]", counting the alt texts dropped. */
export function replaceMarkdownImages(s: string, stripped: StrippedCounts, hidden: HiddenChars): string {
  return s.replace(MARKDOWN_IMAGE, (_whole, alt: string) => {
    if (alt.trim() !== "") {
      stripped.imageAlt += 1;
      hidden.chars += alt.length;
    }
    return IMAGE_PLACEHOLDER;
  });
}
