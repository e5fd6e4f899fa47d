/**
 * Reduces text a human wrote on GitHub to what a person sees on the rendered issue, before any of
 * it is folded into an agent's task. A model reads every character; a person reading the issue
 * sees none of: HTML comments (our own markers included), invisible and bidirectional-control
 * characters, elements hidden by their attributes, image alt text, or markup that HTML entities
 * spell out. All of that is removed here, and what was removed is counted.
 *
 * The output is Markdown-safe text: it contains no HTML comment opener, no tag, no image syntax,
 * no control or invisible character. `<` followed by a letter, `/`, `!` or `?` (or opening an
 * autolink), a `&` that would start an entity, and `![` are written as `&lt;`, `&amp;` and `&#33;[`; decoding those entities
 * once gives the visible text. Cleaning is idempotent.
 *
 * The model errs on the side of removing: text that looks like a tag (`<` and a letter) is
 * markup up to its `>` even where GitHub would have shown it (inside code spans, `Vec<u8>`), and
 * an unterminated comment, tag or hidden element runs to the end of the text.
 *
 * This module runs the passes in order; each pass is a module of humanText/.
 */

import { applyBlockquotes } from "./humanText/blockquotes.js";
import { decodeEntities } from "./humanText/entities.js";
import { escapeMarkup } from "./humanText/escapeMarkup.js";
import { stripHiddenCharacters } from "./humanText/hiddenCharacters.js";
import { removeComments } from "./humanText/htmlComments.js";
import { replaceMarkdownImages } from "./humanText/markdownImages.js";
import { reduceMarkup } from "./humanText/reduceMarkup.js";
import type { CleanedText, StrippedCounts } from "./humanText/strippedCounts.js";
import { tidy } from "./humanText/tidy.js";

export type { CleanedText, StrippedCounts } from "./humanText/strippedCounts.js";

export function cleanHumanText(input: string): CleanedText {
  const stripped: StrippedCounts = { htmlComments: 0, invisible: 0, hiddenHtml: 0, imageAlt: 0, entities: 0 };
  const hidden = { chars: 0 };
  let text = input.replace(/\r\n?/g, "\n");

  const raw = stripHiddenCharacters(text);
  text = raw.text;
  stripped.invisible += raw.removed;
  hidden.chars += raw.removed;

  text = removeComments(text, stripped, hidden);
  text = applyBlockquotes(reduceMarkup(text, stripped, hidden));
  text = replaceMarkdownImages(text, stripped, hidden);
  text = decodeEntities(text, stripped);

  // Entities may have spelt invisible or control characters (&#8203;, &zwj;, &#x202E;).
  const decoded = stripHiddenCharacters(text);
  stripped.invisible += decoded.removed;
  hidden.chars += decoded.removed;

  return { text: tidy(escapeMarkup(decoded.text)), stripped, hiddenChars: hidden.chars };
}
