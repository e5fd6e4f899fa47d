import { escapeHtml, safeHref } from "../../src/http/html.js";

/**
 * The Markdown the bot and people write on an issue, rendered as GitHub shows it, safely: every
 * character of the source is escaped, and only the markup below is produced (headings, lists,
 * block quotes, fenced code, tables, rules, bold, italic, strike-through, inline code, http(s)
 * links). `<!-- … -->` markers are hidden, as on GitHub; any other HTML is shown as text. A single
 * newline is a line break, as in GitHub's comments.
 */
export function renderMarkdown(source: string): string {
  const lines = source
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  return blocks(lines).join("\n");
}

const FENCE = /^\s*(`{3,}|~{3,})/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function blocks(lines: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const close = lines.findIndex((l, at) => at > i && l.trim().startsWith(fence[1]!));
      const end = close === -1 ? lines.length : close;
      out.push(`<pre><code>${escapeHtml(lines.slice(i + 1, end).join("\n"))}</code></pre>`);
      i = end + 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "")) {
      const rows = [line];
      for (i += 2; i < lines.length && lines[i]!.includes("|") && lines[i]!.trim() !== ""; i++) rows.push(lines[i]!);
      out.push(table(rows));
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) quoted.push(QUOTE.exec(lines[i]!)![1]!);
      out.push(`<blockquote>${blocks(quoted).join("\n")}</blockquote>`);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1]!);
      const items: string[][] = [];
      for (; i < lines.length; i++) {
        const next = LIST_ITEM.exec(lines[i]!);
        if (next && /\d/.test(next[1]!) === ordered) items.push([next[2]!]);
        // An indented line continues the item above it.
        else if (/^\s{2,}\S/.test(lines[i]!) && items.length > 0) items[items.length - 1]!.push(lines[i]!.trim());
        else break;
      }
      const start = ordered ? Number.parseInt(item[1]!, 10) : 1;
      const tag = ordered ? "ol" : "ul";
      const attributes = ordered && start !== 1 ? ` start="${start}"` : "";
      out.push(`<${tag}${attributes}>${items.map((parts) => `<li>${parts.map(inline).join("<br>")}</li>`).join("")}</${tag}>`);
      continue;
    }
    const paragraph: string[] = [];
    for (; i < lines.length && lines[i]!.trim() !== "" && !startsBlock(lines, i); i++) paragraph.push(lines[i]!.trim());
    if (paragraph.length === 0) paragraph.push(lines[i++]!.trim());
    out.push(`<p>${paragraph.map(inline).join("<br>\n")}</p>`);
  }
  return out;
}

function startsBlock(lines: string[], i: number): boolean {
  const line = lines[i]!;
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    LIST_ITEM.test(line) ||
    (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? ""))
  );
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

function table(rows: string[]): string {
  const [head = "", ...body] = rows;
  const th = cells(head)
    .map((cell) => `<th>${inline(cell)}</th>`)
    .join("");
  const tr = body
    .map(
      (row) =>
        `<tr>${cells(row)
          .map((cell) => `<td>${inline(cell)}</td>`)
          .join("")}</tr>`,
    )
    .join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}

/** Inline code, links and bare URLs first (their text is not emphasis), then emphasis on the escaped rest. */
const INLINE = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"*_])/g;

function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    out += emphasis(escapeHtml(text.slice(last, match.index)));
    last = match.index + match[0].length;
    const [whole, code, label, url, bare] = match;
    if (code !== undefined) out += `<code>${escapeHtml(code)}</code>`;
    else if (label !== undefined && url !== undefined) out += link(url, emphasis(escapeHtml(label))) ?? emphasis(escapeHtml(whole));
    else if (bare !== undefined) out += link(bare, escapeHtml(bare))!;
  }
  return out + emphasis(escapeHtml(text.slice(last)));
}

function link(url: string, content: string): string | undefined {
  const href = safeHref(url);
  return href === undefined ? undefined : `<a href="${escapeHtml(href)}">${content}</a>`;
}

function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)(.+?)(?<=\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "<del>$1</del>")
    .replace(/(^|[^\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, "$1<em>$2</em>");
}
