import type { OpenGatesReport } from "../../observe/gateView.js";
import { LOGOUT_PATH } from "../auth.js";
import { Html, html, pageHead } from "../html.js";
import { renderGate } from "./gateHtml.js";
import { groupByRepo } from "./groupByRepo.js";
import { renderInbox } from "./inboxHtml.js";
import { REFRESH_MS, STATUS_PAGE_PATH } from "./pagePaths.js";
import { SCRIPT } from "./pageScript.js";
import { STYLE } from "./pageStyle.js";

function renderGates(report: OpenGatesReport): Html {
  if (report.byAnswerer) return renderInbox(report.byAnswerer);
  if (report.gates.length === 0) return html`<p class="empty">No open gates.</p>`;
  return html`${groupByRepo(report.gates).map(
    (group) => html`<section class="repo" data-repo="${group.repo}">
      <h2>${group.repo} <span class="count">${group.gates.length}</span></h2>
      ${group.gates.map(renderGate)}
    </section>`,
  )}`;
}

function summary(report: OpenGatesReport): string {
  const c = report.counts;
  return `${c.open} open · ${c.overdue} overdue · ${c.noTimeout} without timeout · updated ${report.generatedAt.slice(11, 19)} UTC`;
}

/** Where agents run (AGENT_SANDBOX), as the status page tells it. */
export interface SandboxView {
  mode: "bwrap" | "none";
  problem: string | undefined;
}

/** The page's sandbox line: plain when agents are confined, flagged when they are not or cannot start. */
function sandboxLine(sandbox: SandboxView): Html {
  if (sandbox.problem) return html`<p id="sandbox" class="overdue" role="status">${sandbox.problem} Rounds are refused until it can start.</p>`;
  if (sandbox.mode === "none")
    return html`<p id="sandbox" class="overdue" role="status">Agents run unsandboxed (AGENT_SANDBOX=none): they can read what the app's user can.</p>`;
  return html`<p id="sandbox" class="meta">Agents run in the bubblewrap sandbox (AGENT_SANDBOX=bwrap).</p>`;
}

/** The links between the main view and the inbox, and the sign-out button (a POST: a link could be followed by anything). */
function nav(inbox: boolean): Html {
  const current = (here: boolean) => (here ? html` aria-current="page"` : "");
  return html`<nav><a href="${STATUS_PAGE_PATH}"${current(!inbox)}>Open gates</a><a href="${STATUS_PAGE_PATH}?by=answerer"${current(inbox)}>Inbox</a>
<form method="post" action="${LOGOUT_PATH}"><button type="submit">Sign out</button></form></nav>`;
}

/** The whole page: the open gates (or the inbox) as HTML, its style, and the script that keeps it fresh under `nonce`. */
export function renderStatusPage(report: OpenGatesReport, nonce: string, sandbox: SandboxView): string {
  const count = report.counts.open;
  return html`<!doctype html>
<html lang="en">
${pageHead({ title: `Escalation: ${count} open gate${count === 1 ? "" : "s"}`, referrer: "no-referrer", nonce, style: STYLE })}
<body>
${nav(report.byAnswerer !== undefined)}
<header>
<h1>${report.byAnswerer ? "Open gates by who can answer" : "Open gates"}</h1>
<p id="summary">${summary(report)}</p>
<p id="error" role="status"></p>
<p id="github" class="overdue" role="status"></p>
${sandboxLine(sandbox)}
</header>
<main id="gates">${renderGates(report)}</main>
<footer><p class="meta">Questions agents asked and nobody answered yet, oldest first. Refreshes every ${REFRESH_MS / 1000} s.</p></footer>
<script nonce="${nonce}">${new Html(SCRIPT)}</script>
</body>
</html>
`.value;
}
