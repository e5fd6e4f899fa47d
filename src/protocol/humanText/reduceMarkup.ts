import { AUTOLINK } from "./autolink.js";
import { QUOTE_CLOSE, QUOTE_OPEN } from "./blockquotes.js";
import { BLOCK_ELEMENTS, VOID_ELEMENTS, elementEnd, isHidden, parseTag } from "./htmlTag.js";
import { IMAGE_PLACEHOLDER } from "./markdownImages.js";
import type { HiddenChars, StrippedCounts } from "./strippedCounts.js";

/**
 * One pass over `<` constructs: declarations and processing instructions disappear, hidden
 * elements go with their content, images become "[image]", other tags are reduced to the text
 * they contain (block elements start a line, blockquotes are marked for quoting).
 */
export function reduceMarkup(s: string, stripped: StrippedCounts, hidden: HiddenChars): string {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    if (lt === -1) {
      out.push(s.slice(i));
      break;
    }
    out.push(s.slice(i, lt));
    i = lt;
    const declarationEnd = declarationAt(s, i);
    if (declarationEnd !== undefined) {
      stripped.hiddenHtml += 1;
      hidden.chars += declarationEnd - i;
      i = declarationEnd;
      continue;
    }
    AUTOLINK.lastIndex = i;
    const autolink = AUTOLINK.exec(s);
    if (autolink) {
      out.push(autolink[1]!);
      i += autolink[0].length;
      continue;
    }
    const tag = parseTag(s, i);
    if (!tag) {
      out.push("<");
      i += 1;
      continue;
    }
    if (!tag.closing && isHidden(tag)) {
      const end = VOID_ELEMENTS.has(tag.name) ? tag.end : elementEnd(s, tag);
      stripped.hiddenHtml += 1;
      hidden.chars += end - i;
      i = end;
      continue;
    }
    if (tag.name === "img" && !tag.closing) {
      const alt = tag.attributes.get("alt")?.trim() ?? "";
      if (alt) {
        stripped.imageAlt += 1;
        hidden.chars += alt.length;
      }
      out.push(IMAGE_PLACEHOLDER);
    } else if (tag.name === "blockquote") {
      out.push(tag.closing ? QUOTE_CLOSE : QUOTE_OPEN);
    } else if (BLOCK_ELEMENTS.has(tag.name)) {
      out.push("\n");
    }
    i = tag.end;
  }
  return out.join("");
}

/** End of a `<![CDATA[…]]>`, `<?…>` or `<!…>` at `i` (never rendered), or undefined. */
function declarationAt(s: string, i: number): number | undefined {
  const find = (needle: string, from: number) => {
    const end = s.indexOf(needle, from);
    return end === -1 ? s.length : end + needle.length;
  };
  if (s.startsWith("<![CDATA[", i)) return find("]]>", i + 9);
  if (s[i + 1] === "?" || s[i + 1] === "!") return find(">", i + 2);
  return undefined;
}
