import { decodeEntities } from "./entities.js";

export interface Tag {
  name: string;
  closing: boolean;
  attributes: Map<string, string>;
  /** Index just after the tag's `>`; the text's length when the tag is unterminated. */
  end: number;
}

export const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements whose content a reader never sees. */
const NEVER_RENDERED = new Set(["script", "style", "template", "title", "head", "noscript", "noembed", "noframes", "iframe", "object", "frameset", "xmp"]);
/** Elements whose content ends at the first matching end tag, whatever it contains. */
const RAW_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"]);
/** Elements that start a new line in the rendered text. */
export const BLOCK_ELEMENTS = new Set([
  "address",
  "article",
  "aside",
  "br",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
const HIDING_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|(?:content-)?visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0*(?:\.0*)?\s*(?:!important\s*)?(?:;|$)|font-size\s*:\s*0*(?:\.0*)?(?:px|em|rem|pt|%)?\s*(?:!important\s*)?(?:;|$))/i;

const isAsciiLetter = (c: string | undefined) => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\f";

/**
 * Parses a tag at `<` the way an HTML tokenizer does (leniently: what a browser would take as a
 * tag is a tag). Returns undefined when `<` does not start one (`a < b`, `<3`).
 */
export function parseTag(s: string, start: number): Tag | undefined {
  let i = start + 1;
  const closing = s[i] === "/";
  if (closing) i += 1;
  if (!isAsciiLetter(s[i])) return undefined;
  const nameStart = i;
  while (i < s.length && !isSpace(s[i]) && s[i] !== "/" && s[i] !== ">") i += 1;
  const name = s.slice(nameStart, i).toLowerCase();
  const attributes = new Map<string, string>();
  for (;;) {
    while (i < s.length && (isSpace(s[i]) || s[i] === "/")) i += 1;
    if (i >= s.length) return { name, closing, attributes, end: s.length };
    if (s[i] === ">") return { name, closing, attributes, end: i + 1 };
    const attrStart = i;
    i += 1; // a first "=" belongs to the name
    while (i < s.length && !isSpace(s[i]) && s[i] !== "/" && s[i] !== ">" && s[i] !== "=") i += 1;
    const attrName = s.slice(attrStart, i).toLowerCase();
    let j = i;
    while (j < s.length && isSpace(s[j])) j += 1;
    let value = "";
    if (s[j] === "=") {
      j += 1;
      while (j < s.length && isSpace(s[j])) j += 1;
      const quote = s[j];
      if (quote === '"' || quote === "'") {
        const close = s.indexOf(quote, j + 1);
        if (close === -1) return { name, closing, attributes, end: s.length };
        value = s.slice(j + 1, close);
        i = close + 1;
      } else {
        const valueStart = j;
        while (j < s.length && !isSpace(s[j]) && s[j] !== ">") j += 1;
        value = s.slice(valueStart, j);
        i = j;
      }
    }
    // Attribute values are decoded by the browser: style="display&colon;none" hides too.
    if (!attributes.has(attrName)) attributes.set(attrName, decodeEntities(value));
  }
}

export function isHidden(tag: Tag): boolean {
  if (NEVER_RENDERED.has(tag.name)) return true;
  if (tag.attributes.has("hidden")) return true;
  if (tag.attributes.get("aria-hidden")?.trim().toLowerCase() === "true") return true;
  if (tag.name === "input" && tag.attributes.get("type")?.trim().toLowerCase() === "hidden") return true;
  const style = tag.attributes.get("style");
  return style !== undefined && HIDING_STYLE.test(style.replace(/\/\*[\s\S]*?\*\//g, ""));
}

/** Index just after the end tag matching the element `tag` opened at `from`; the text's length when none. */
export function elementEnd(s: string, tag: Tag): number {
  let depth = 1;
  let i = tag.end;
  for (;;) {
    const lt = s.indexOf("<", i);
    if (lt === -1) return s.length;
    const next = parseTag(s, lt);
    if (!next) {
      i = lt + 1;
      continue;
    }
    if (next.name === tag.name) {
      if (next.closing) depth -= 1;
      else if (!RAW_TEXT.has(tag.name)) depth += 1;
      if (depth === 0) return next.end;
    }
    i = next.end;
  }
}
