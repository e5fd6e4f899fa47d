import { opensAutolink } from "./autolink.js";
import { NAMED_ENTITIES } from "./entities.js";

/**
 * The inverse of one decoding pass, for exactly the characters that would form markup again:
 * `<` before a letter, `/`, `!` or `?`, or opening an autolink (`<^@a>`: an e-mail's local part may
 * start with a symbol); `&` before a reference that would decode; `![`.
 */
export function escapeMarkup(s: string): string {
  return s
    .replace(/&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|([A-Za-z][A-Za-z0-9]{1,31});)/g, (amp, name?: string) =>
      name === undefined || Object.hasOwn(NAMED_ENTITIES, name) ? "&amp;" : amp,
    )
    .replace(/</g, (lt, at: number, text: string) => (/[A-Za-z/!?]/.test(text.charAt(at + 1)) || opensAutolink(text, at) ? "&lt;" : lt))
    .replace(/!(?=\[)/g, "&#33;");
}
