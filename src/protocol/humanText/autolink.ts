/** Email and URI autolinks (`<a@b.c>`, `<https://x>`) show their text. */
export const AUTOLINK =
  /<((?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)|(?:[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*))>/y;

/** Whether `<` at `at` opens an autolink. */
export function opensAutolink(text: string, at: number): boolean {
  AUTOLINK.lastIndex = at;
  return AUTOLINK.test(text);
}
