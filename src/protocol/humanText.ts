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
 */

export interface StrippedCounts {
  /** HTML comments removed (copies of our markers included). */
  htmlComments: number;
  /** Invisible, bidirectional-control, format and control characters removed. */
  invisible: number;
  /** Elements removed with their content: hidden by `hidden`, `aria-hidden="true"` or a style, never rendered (`<script>`…), or declarations (`<!X>`, `<?x>`, CDATA). */
  hiddenHtml: number;
  /** Images (Markdown or `<img>`) whose alt text was dropped; each image is shown as "[image]". */
  imageAlt: number;
  /** HTML entity references decoded. */
  entities: number;
}

export interface CleanedText {
  text: string;
  stripped: StrippedCounts;
  /** Characters of the input that were hidden content (comments, invisible characters, hidden elements, alt text). */
  hiddenChars: number;
}

export const IMAGE_PLACEHOLDER = "[image]";

// Format (Cf), control (Cc) except tab and line feed, line/paragraph separators, and every
// default-ignorable code point: zero-width and bidi controls, soft hyphen, variation selectors,
// Hangul fillers, Unicode tag characters (U+E0000–E007F, "ASCII smuggling").
const HIDDEN_CHARS = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** Removes invisible, format and control characters (tab and line feed stay); returns the count. */
export function stripHiddenCharacters(text: string): { text: string; removed: number } {
  let removed = 0;
  const out = text.replace(HIDDEN_CHARS, () => {
    removed += 1;
    return "";
  });
  return { text: out, removed };
}

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

function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    // Blank lines go from both ends, but the first line keeps its indentation: it may make it code.
    .replace(/^\n+/, "")
    .trimEnd();
}

/**
 * Removes `<!-- ... -->` in one linear pass; an unterminated comment runs to the end. Checking
 * the output (not the input) for "<!--" also catches an opener assembled from the pieces around a
 * removed comment, e.g. "<!<!-- x -->--".
 */
function removeComments(text: string, stripped: StrippedCounts, hidden: { chars: number }): string {
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

interface Tag {
  name: string;
  closing: boolean;
  attributes: Map<string, string>;
  /** Index just after the tag's `>`; the text's length when the tag is unterminated. */
  end: number;
}

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements whose content a reader never sees. */
const NEVER_RENDERED = new Set(["script", "style", "template", "title", "head", "noscript", "noembed", "noframes", "iframe", "object", "frameset", "xmp"]);
/** Elements whose content ends at the first matching end tag, whatever it contains. */
const RAW_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"]);
/** Elements that start a new line in the rendered text. */
const BLOCK_ELEMENTS = new Set([
  "address", "article", "aside", "br", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "footer", "h1", "h2", "h3",
  "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot",
  "th", "thead", "tr", "ul",
]);
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|(?:content-)?visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0*(?:\.0*)?\s*(?:!important\s*)?(?:;|$)|font-size\s*:\s*0*(?:\.0*)?(?:px|em|rem|pt|%)?\s*(?:!important\s*)?(?:;|$))/i;

// Markers the blockquote pass turns into "> " lines; control characters, so none survives the
// first stripHiddenCharacters pass.
const QUOTE_OPEN = "\u0001";
const QUOTE_CLOSE = "\u0002";

const isAsciiLetter = (c: string | undefined) => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\f";

/**
 * Parses a tag at `<` the way an HTML tokenizer does (leniently: what a browser would take as a
 * tag is a tag). Returns undefined when `<` does not start one (`a < b`, `<3`).
 */
function parseTag(s: string, start: number): Tag | undefined {
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

function isHidden(tag: Tag): boolean {
  if (NEVER_RENDERED.has(tag.name)) return true;
  if (tag.attributes.has("hidden")) return true;
  if (tag.attributes.get("aria-hidden")?.trim().toLowerCase() === "true") return true;
  if (tag.name === "input" && tag.attributes.get("type")?.trim().toLowerCase() === "hidden") return true;
  const style = tag.attributes.get("style");
  return style !== undefined && HIDING_STYLE.test(style.replace(/\/\*[\s\S]*?\*\//g, ""));
}

/** Index just after the end tag matching the element `tag` opened at `from`; the text's length when none. */
function elementEnd(s: string, tag: Tag): number {
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

/** Email and URI autolinks (`<a@b.c>`, `<https://x>`) show their text. */
const AUTOLINK = /<((?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)|(?:[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*))>/y;

/**
 * One pass over `<` constructs: declarations and processing instructions disappear, hidden
 * elements go with their content, images become "[image]", other tags are reduced to the text
 * they contain (block elements start a line, blockquotes are marked for quoting).
 */
function reduceMarkup(s: string, stripped: StrippedCounts, hidden: { chars: number }): string {
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

/** Text inside `<blockquote>` becomes "> " lines, like a Markdown quote. */
function applyBlockquotes(s: string): string {
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

// `![alt](destination "title")`, `![alt][ref]` and `![alt]`: one level of nested brackets and
// parentheses, backslash escapes. Each alternative starts with a different character, so matching
// stays linear.
const BRACKETED = String.raw`\[((?:[^\[\]\\]|\\[\s\S]|\[(?:[^\[\]\\]|\\[\s\S])*\])*)\]`;
const DESTINATION = String.raw`\((?:[^()\\]|\\[\s\S]|\((?:[^()\\]|\\[\s\S])*\))*\)`;
const MARKDOWN_IMAGE = new RegExp(String.raw`!${BRACKETED}(?:${DESTINATION}|\[(?:[^\[\]\\]|\\[\s\S])*\])?`, "g");

function replaceMarkdownImages(s: string, stripped: StrippedCounts, hidden: { chars: number }): string {
  return s.replace(MARKDOWN_IMAGE, (_whole, alt: string) => {
    if (alt.trim() !== "") {
      stripped.imageAlt += 1;
      hidden.chars += alt.length;
    }
    return IMAGE_PLACEHOLDER;
  });
}

// The named references decoded (case-sensitive, with the semicolon, as CommonMark requires): the
// markup characters and their look-alikes, the invisible ones, and common typography. An unknown
// name stays as written, which a reader sees as written too.
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&", AMP: "&", lt: "<", LT: "<", gt: ">", GT: ">", quot: '"', QUOT: '"', apos: "'", excl: "!", num: "#",
  dollar: "$", percnt: "%", lpar: "(", rpar: ")", ast: "*", midast: "*", plus: "+", comma: ",", period: ".", sol: "/",
  colon: ":", semi: ";", equals: "=", quest: "?", commat: "@", lsqb: "[", lbrack: "[", rsqb: "]", rbrack: "]", bsol: "\\",
  Hat: "^", lowbar: "_", UnderBar: "_", grave: "`", DiacriticalGrave: "`", lcub: "{", lbrace: "{", rcub: "}", rbrace: "}",
  verbar: "|", vert: "|", VerticalLine: "|", Tab: "\t", NewLine: "\n", nbsp: "\u00A0", NonBreakingSpace: "\u00A0",
  ensp: "\u2002", emsp: "\u2003", thinsp: "\u2009", ThinSpace: "\u2009", hairsp: "\u200A", VeryThinSpace: "\u200A",
  shy: "\u00AD", zwnj: "\u200C", zwj: "\u200D", lrm: "\u200E", rlm: "\u200F", ZeroWidthSpace: "\u200B",
  NegativeVeryThinSpace: "\u200B", NegativeThinSpace: "\u200B", NegativeMediumSpace: "\u200B", NegativeThickSpace: "\u200B",
  NoBreak: "\u2060", af: "\u2061", ApplyFunction: "\u2061", it: "\u2062", InvisibleTimes: "\u2062", ic: "\u2063",
  InvisibleComma: "\u2063", copy: "©", COPY: "©", reg: "®", REG: "®", trade: "™", TRADE: "™", hellip: "…", mldr: "…",
  mdash: "—", ndash: "–", lsquo: "‘", rsquo: "’", sbquo: "‚", ldquo: "“", rdquo: "”", bdquo: "„", laquo: "«", raquo: "»",
  lsaquo: "‹", rsaquo: "›", bull: "•", bullet: "•", middot: "·", centerdot: "·", times: "×", divide: "÷", div: "÷", deg: "°",
  plusmn: "±", pm: "±", para: "¶", sect: "§", euro: "€", pound: "£", yen: "¥", cent: "¢", larr: "←", rarr: "→", uarr: "↑",
  darr: "↓", harr: "↔", lArr: "⇐", rArr: "⇒", hArr: "⇔", le: "≤", ge: "≥", ne: "≠", asymp: "≈", infin: "∞", minus: "−",
  check: "✓", checkmark: "✓", cross: "✗", star: "☆", starf: "★", dagger: "†", Dagger: "‡", prime: "′", Prime: "″",
  frac12: "½", frac14: "¼", frac34: "¾", sup1: "¹", sup2: "²", sup3: "³", micro: "µ", iexcl: "¡", iquest: "¿",
};

const ENTITY = /&(?:#([0-9]{1,7});|#[xX]([0-9a-fA-F]{1,6});|([A-Za-z][A-Za-z0-9]{1,31});)/g;

function decodeReference(decimal: string | undefined, hex: string | undefined, name: string | undefined): string | undefined {
  if (name !== undefined) return Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name] : undefined;
  const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
  // As CommonMark: NUL, surrogates and out-of-range code points become U+FFFD.
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
  return String.fromCodePoint(code);
}

/** Decodes entity references in one left-to-right pass: what was decoded is never decoded again. */
function decodeEntities(s: string, stripped?: StrippedCounts): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    const decoded = decodeReference(decimal, hex, name);
    if (decoded === undefined) return whole;
    if (stripped) stripped.entities += 1;
    return decoded;
  });
}

/**
 * The inverse of one decoding pass, for exactly the characters that would form markup again:
 * `<` before a letter, `/`, `!` or `?`, or opening an autolink (`<^@a>`: an e-mail's local part may
 * start with a symbol); `&` before a reference that would decode; `![`.
 */
function escapeMarkup(s: string): string {
  return s
    .replace(/&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|([A-Za-z][A-Za-z0-9]{1,31});)/g, (amp, name?: string) =>
      name === undefined || Object.hasOwn(NAMED_ENTITIES, name) ? "&amp;" : amp,
    )
    .replace(/</g, (lt, at: number, text: string) => (/[A-Za-z/!?]/.test(text.charAt(at + 1)) || opensAutolink(text, at) ? "&lt;" : lt))
    .replace(/!(?=\[)/g, "&#33;");
}

function opensAutolink(text: string, at: number): boolean {
  AUTOLINK.lastIndex = at;
  return AUTOLINK.test(text);
}
