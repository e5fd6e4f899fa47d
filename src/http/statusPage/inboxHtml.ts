import type { InboxEntry, InboxGroup } from "../../observe/inbox.js";
import { html, type Html } from "../html.js";
import { externalLink } from "./externalLink.js";
import { shortDuration } from "./shortDuration.js";

function renderEntry(entry: InboxEntry): Html {
  return html`<li class="entry" data-gate="${entry.id}">
      <span class="age">${shortDuration(entry.ageSeconds)}</span> ·
      ${externalLink(entry.issueUrl, `${entry.repo}#${entry.issue}${entry.title ? ` ${entry.title}` : ""}`)} ·
      <span class="via">${entry.via}</span>${entry.paths.length > 0 ? html` of <code>${entry.paths.join(", ")}</code>` : ""}
      <p class="text">${entry.question}</p>
      <p class="links">${externalLink(entry.url, "Answer on GitHub")} · gate <code>${entry.id}</code></p>
    </li>`;
}

/** The inbox: each who can answer, with every gate waiting on them and how long each has waited. */
export function renderInbox(groups: InboxGroup[]): Html {
  if (groups.length === 0) return html`<p class="empty">No open gates waiting on anyone.</p>`;
  return html`${groups.map(
    (group) => html`<section class="answerer" data-answerer="${group.answerer.name}">
      <h2>${group.answerer.label} <span class="count">${group.count}</span></h2>
      <p class="meta">oldest waiting ${shortDuration(group.oldestAgeSeconds)}</p>
      <ol class="entries">${group.gates.map(renderEntry)}</ol>
    </section>`,
  )}`;
}
