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
