import type { StrippedCounts } from "./strippedCounts.js";

// The named references decoded (case-sensitive, with the semicolon, as CommonMark requires): the
// markup characters and their look-alikes, the invisible ones, and common typography. An unknown
// name stays as written, which a reader sees as written too.
export const NAMED_ENTITIES: Record<string, string> = {
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
export function decodeEntities(s: string, stripped?: StrippedCounts): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    const decoded = decodeReference(decimal, hex, name);
    if (decoded === undefined) return whole;
    if (stripped) stripped.entities += 1;
    return decoded;
  });
}
