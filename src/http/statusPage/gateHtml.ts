import type { GateView } from "../../observe/gateView.js";
import { answererText } from "../../observe/inbox.js";
import { html, type Html } from "../html.js";
import { externalLink } from "./externalLink.js";
import { shortDuration } from "./shortDuration.js";

function timeLeft(gate: GateView): Html {
  if (gate.overdueSince !== null)
    return html`<span class="left overdue">overdue since ${gate.overdueSince.slice(0, 16).replace("T", " ")} UTC (reminders ran out)</span>`;
  if (gate.timeLeftSeconds === null) return html`<span class="left none">no timeout</span>`;
  if (gate.timeLeftSeconds < 0) return html`<span class="left overdue">overdue ${shortDuration(gate.timeLeftSeconds)}</span>`;
  return html`<span class="left">${shortDuration(gate.timeLeftSeconds)} left</span>`;
}

/** One open gate: its questions, age, time left, who can answer and where. */
export function renderGate(gate: GateView): Html {
  const questions = gate.questions.map(
    (q) => html`<li class="question">
        <p class="text">${q.text}</p>
        ${q.options.length > 0 ? html`<ol class="options">${q.options.map((o) => html`<li${o === q.default ? html` class="default"` : ""}>${o}${o === q.default ? html` <em>(default)</em>` : ""}</li>`)}</ol>` : ""}
        ${q.default !== null && !q.options.includes(q.default) ? html`<p class="default">Default: ${q.default}</p>` : ""}
        ${q.answer ? html`<p class="answered">Answered by @${q.answer.by}: ${q.answer.option ?? q.answer.text}</p>` : ""}
      </li>`,
  );
  return html`<article class="gate" id="gate-${gate.id}" data-gate="${gate.id}">
      <h3>${externalLink(gate.issueUrl, `#${gate.issue}${gate.title ? ` ${gate.title}` : ""}`)}</h3>
      <p class="meta"><span class="kind">${gate.kind}</span> · round ${gate.round} · asked <span class="age">${shortDuration(gate.ageSeconds)}</span> ago by ${gate.askedBy} · ${timeLeft(gate)}</p>
      ${gate.context ? html`<p class="context">${gate.context}</p>` : ""}
      ${gate.paths.length > 0 ? html`<p class="paths">About: ${gate.paths.map((p, i) => html`${i > 0 ? ", " : ""}<code>${p}</code>`)}</p>` : ""}
      <ol class="questions">${questions}</ol>
      ${gate.approval ? html`<p class="tally">${gate.approval.summary}</p>` : ""}
      <p class="who">Who can answer: ${gate.answerers.map(answererText).join(" · ")}</p>
      <p class="links">${externalLink(gate.url, "Answer on GitHub")} · gate <code>${gate.id}</code></p>
    </article>`;
}
