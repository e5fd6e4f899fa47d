import { Html, html, safeHref } from "../html.js";

/** A link that opens in a new tab without a referrer; plain text when the URL is not http(s). */
export function externalLink(url: string, text: Html | string): Html {
  const href = safeHref(url);
  return href ? html`<a href="${href}" rel="noreferrer noopener" target="_blank">${text}</a>` : html`${text}`;
}
