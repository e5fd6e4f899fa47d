import { randomBytes } from "node:crypto";
import { openGatesReport, type GateView, type OpenGatesReport } from "../observe/gateView.js";
import { answererText, type InboxEntry, type InboxGroup } from "../observe/inbox.js";
import type { Services } from "../services.js";
import { LOGIN_PATH, LOGOUT_PATH, PRIVATE_HEADERS, bearerToken, refuse, type AdminAuth } from "./auth.js";
import { Html, html, pageHead, safeHref } from "./html.js";
import { reportQuery } from "./reportQuery.js";
import { route, within, type HttpHandler } from "./route.js";

export const STATUS_PAGE_PATH = "/escalation";
/** How often the page re-reads the JSON. */
export const REFRESH_MS = 5000;

/** "1d 2h", "5m": the two largest units (the page's script has the same function). */
function shortDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.round(Math.abs(totalSeconds)));
  const out: string[] = [];
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]] as const) {
    if (rest >= size) {
      out.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return out.length > 0 ? out.slice(0, 2).join(" ") : "0s";
}

/** Open gates grouped by repository; groups ordered by their oldest gate, gates oldest first. */
export function groupByRepo(gates: GateView[]): Array<{ repo: string; gates: GateView[] }> {
  const groups = new Map<string, { repo: string; gates: GateView[] }>();
  for (const gate of gates) {
    const key = gate.repo.toLowerCase();
    if (!groups.has(key)) groups.set(key, { repo: gate.repo, gates: [] });
    groups.get(key)!.gates.push(gate);
  }
  return [...groups.values()];
}

function link(url: string, text: Html | string): Html {
  const href = safeHref(url);
  return href ? html`<a href="${href}" rel="noreferrer noopener" target="_blank">${text}</a>` : html`${text}`;
}

function timeLeft(gate: GateView): Html {
  if (gate.overdueSince !== null) return html`<span class="left overdue">overdue since ${gate.overdueSince.slice(0, 16).replace("T", " ")} UTC (reminders ran out)</span>`;
  if (gate.timeLeftSeconds === null) return html`<span class="left none">no timeout</span>`;
  if (gate.timeLeftSeconds < 0) return html`<span class="left overdue">overdue ${shortDuration(gate.timeLeftSeconds)}</span>`;
  return html`<span class="left">${shortDuration(gate.timeLeftSeconds)} left</span>`;
}

function renderGate(gate: GateView): Html {
  const questions = gate.questions.map(
    (q) => html`<li class="question">
        <p class="text">${q.text}</p>
        ${q.options.length > 0 ? html`<ol class="options">${q.options.map((o) => html`<li${o === q.default ? html` class="default"` : ""}>${o}${o === q.default ? html` <em>(default)</em>` : ""}</li>`)}</ol>` : ""}
        ${q.default !== null && !q.options.includes(q.default) ? html`<p class="default">Default: ${q.default}</p>` : ""}
        ${q.answer ? html`<p class="answered">Answered by @${q.answer.by}: ${q.answer.option ?? q.answer.text}</p>` : ""}
      </li>`,
  );
  return html`<article class="gate" id="gate-${gate.id}" data-gate="${gate.id}">
      <h3>${link(gate.issueUrl, `#${gate.issue}${gate.title ? ` ${gate.title}` : ""}`)}</h3>
      <p class="meta"><span class="kind">${gate.kind}</span> · round ${gate.round} · asked <span class="age">${shortDuration(gate.ageSeconds)}</span> ago by ${gate.askedBy} · ${timeLeft(gate)}</p>
      ${gate.context ? html`<p class="context">${gate.context}</p>` : ""}
      ${gate.paths.length > 0 ? html`<p class="paths">About: ${gate.paths.map((p, i) => html`${i > 0 ? ", " : ""}<code>${p}</code>`)}</p>` : ""}
      <ol class="questions">${questions}</ol>
      ${gate.approval ? html`<p class="tally">${gate.approval.summary}</p>` : ""}
      <p class="who">Who can answer: ${gate.answerers.map(answererText).join(" · ")}</p>
      <p class="links">${link(gate.url, "Answer on GitHub")} · gate <code>${gate.id}</code></p>
    </article>`;
}

function renderEntry(entry: InboxEntry): Html {
  return html`<li class="entry" data-gate="${entry.id}">
      <span class="age">${shortDuration(entry.ageSeconds)}</span> ·
      ${link(entry.issueUrl, `${entry.repo}#${entry.issue}${entry.title ? ` ${entry.title}` : ""}`)} ·
      <span class="via">${entry.via}</span>${entry.paths.length > 0 ? html` of <code>${entry.paths.join(", ")}</code>` : ""}
      <p class="text">${entry.question}</p>
      <p class="links">${link(entry.url, "Answer on GitHub")} · gate <code>${entry.id}</code></p>
    </li>`;
}

/** The inbox: each who can answer, with every gate waiting on them and how long each has waited. */
function renderInbox(groups: InboxGroup[]): Html {
  if (groups.length === 0) return html`<p class="empty">No open gates waiting on anyone.</p>`;
  return html`${groups.map(
    (group) => html`<section class="answerer" data-answerer="${group.answerer.name}">
      <h2>${group.answerer.label} <span class="count">${group.count}</span></h2>
      <p class="meta">oldest waiting ${shortDuration(group.oldestAgeSeconds)}</p>
      <ol class="entries">${group.gates.map(renderEntry)}</ol>
    </section>`,
  )}`;
}

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

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 1.5rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem;margin-top:1.5rem}
h3{font-size:1rem;margin:.25rem 0}.count{background:#eaeef2;border-radius:1em;padding:0 .5em;font-size:.85rem}
.gate{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #d0d7de;padding:.25rem 0}nav a[aria-current]{font-weight:600;color:#1f2328;text-decoration:none}
nav form{margin-left:auto}.tally{font-weight:600}
.meta,.links,.who,.paths,#summary{color:#59636e;font-size:.9rem;margin:.25rem 0}.kind{font-weight:600}
.overdue{color:#cf222e;font-weight:600}.context{white-space:pre-wrap}.question .text{font-weight:600;margin:.4rem 0 .1rem;white-space:pre-wrap}
.entries{padding-left:1.2rem}.entry{margin:.5rem 0}.entry .text{margin:.1rem 0;white-space:pre-wrap}.via{font-weight:600}
.options{margin:.1rem 0}.options .default{font-weight:600}.answered{color:#1a7f37}.empty{color:#59636e}
#error{color:#cf222e}a{color:#0969da}code{font-size:.85rem}
`;

/** The page's script: re-reads the JSON every few seconds and redraws with textContent only (no HTML from data). */
const SCRIPT = `
(() => {
  const params = new URLSearchParams(location.search);
  const query = new URLSearchParams();
  for (const name of ["repo", "by", "answerer"]) for (const value of params.getAll(name)) query.append(name, value);
  const api = location.pathname.replace(/\\/+$/, "") + "/api/gates" + (query.toString() ? "?" + query.toString() : "");
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(typeof c === "string" ? document.createTextNode(c) : c);
    return node;
  };
  const dur = (s) => {
    let rest = Math.max(0, Math.round(Math.abs(s)));
    const out = [];
    for (const [u, n] of [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]]) if (rest >= n) { out.push(Math.floor(rest / n) + u); rest %= n; }
    return out.length ? out.slice(0, 2).join(" ") : "0s";
  };
  const link = (url, text) => /^https?:\\/\\//i.test(url) ? el("a", { href: url, rel: "noreferrer noopener", target: "_blank" }, text) : text;
  const left = (g) => g.overdueSince ? el("span", { class: "left overdue" }, "overdue since " + g.overdueSince.slice(0, 16).replace("T", " ") + " UTC (reminders ran out)")
    : g.timeLeftSeconds === null ? el("span", { class: "left none" }, "no timeout")
    : g.timeLeftSeconds < 0 ? el("span", { class: "left overdue" }, "overdue " + dur(g.timeLeftSeconds))
    : el("span", { class: "left" }, dur(g.timeLeftSeconds) + " left");
  const who = (a) => a.kind === "permission" ? (a.name === "allowed" ? "anyone allowed on the repository" : "anyone with " + a.name + " access") : "@" + a.name + " (" + a.via + ")";
  const question = (q) => el("li", { class: "question" },
    el("p", { class: "text" }, q.text),
    q.options.length ? el("ol", { class: "options" }, q.options.map((o) => o === q.default ? el("li", { class: "default" }, o, " ", el("em", {}, "(default)")) : el("li", {}, o))) : null,
    q.default !== null && !q.options.includes(q.default) ? el("p", { class: "default" }, "Default: " + q.default) : null,
    q.answer ? el("p", { class: "answered" }, "Answered by @" + q.answer.by + ": " + (q.answer.option ?? q.answer.text)) : null);
  const gate = (g) => el("article", { class: "gate", id: "gate-" + g.id, "data-gate": g.id },
    el("h3", {}, link(g.issueUrl, "#" + g.issue + (g.title ? " " + g.title : ""))),
    el("p", { class: "meta" }, el("span", { class: "kind" }, g.kind), " · round " + g.round + " · asked ", el("span", { class: "age" }, dur(g.ageSeconds)), " ago by " + g.askedBy + " · ", left(g)),
    g.context ? el("p", { class: "context" }, g.context) : null,
    g.paths.length ? el("p", { class: "paths" }, "About: ", g.paths.flatMap((p, i) => [i ? ", " : null, el("code", {}, p)])) : null,
    el("ol", { class: "questions" }, g.questions.map(question)),
    g.approval ? el("p", { class: "tally" }, g.approval.summary) : null,
    el("p", { class: "who" }, "Who can answer: " + g.answerers.map(who).join(" · ")),
    el("p", { class: "links" }, link(g.url, "Answer on GitHub"), " · gate ", el("code", {}, g.id)));
  const entry = (e) => el("li", { class: "entry", "data-gate": e.id },
    el("span", { class: "age" }, dur(e.ageSeconds)), " · ",
    link(e.issueUrl, e.repo + "#" + e.issue + (e.title ? " " + e.title : "")), " · ",
    el("span", { class: "via" }, e.via), e.paths.length ? [" of ", el("code", {}, e.paths.join(", "))] : null,
    el("p", { class: "text" }, e.question),
    el("p", { class: "links" }, link(e.url, "Answer on GitHub"), " · gate ", el("code", {}, e.id)));
  const inbox = (groups) => groups.length === 0 ? [el("p", { class: "empty" }, "No open gates waiting on anyone.")]
    : groups.map((grp) => el("section", { class: "answerer", "data-answerer": grp.answerer.name },
        el("h2", {}, grp.answerer.label + " ", el("span", { class: "count" }, String(grp.count))),
        el("p", { class: "meta" }, "oldest waiting " + dur(grp.oldestAgeSeconds)),
        el("ol", { class: "entries" }, grp.gates.map(entry))));
  const render = (report) => {
    const groups = new Map();
    for (const g of report.gates) {
      const key = g.repo.toLowerCase();
      if (!groups.has(key)) groups.set(key, { repo: g.repo, gates: [] });
      groups.get(key).gates.push(g);
    }
    const main = document.getElementById("gates");
    main.replaceChildren(...(report.byAnswerer ? inbox(report.byAnswerer) : report.gates.length === 0 ? [el("p", { class: "empty" }, "No open gates.")]
      : [...groups.values()].map((grp) => el("section", { class: "repo", "data-repo": grp.repo },
          el("h2", {}, grp.repo + " ", el("span", { class: "count" }, String(grp.gates.length))), grp.gates.map(gate)))));
    const c = report.counts;
    document.getElementById("summary").textContent = c.open + " open · " + c.overdue + " overdue · " + c.noTimeout + " without timeout · updated " + report.generatedAt.slice(11, 19) + " UTC";
    const paused = (report.github && report.github.paused) || [];
    document.getElementById("github").textContent = paused.map((p) => "GitHub rate-limited installation " + p.installationId + ": its feedback writes resume in " + dur(p.secondsLeft) + " (agents still resume).").join(" ");
    document.title = "Escalation: " + c.open + " open gate" + (c.open === 1 ? "" : "s");
  };
  const refresh = async () => {
    const error = document.getElementById("error");
    try {
      // The session cookie goes along (same origin); once it has expired, say how to sign in again.
      const res = await fetch(api, { cache: "no-store", credentials: "same-origin" });
      if (res.status === 401) {
        error.replaceChildren("Your session has ended: ", el("a", { href: "${LOGIN_PATH}?next=" + encodeURIComponent(location.pathname + location.search) }, "sign in again"), ".");
        return;
      }
      if (!res.ok) throw new Error("HTTP " + res.status);
      render(await res.json());
      error.textContent = "";
    } catch (e) {
      error.textContent = "Refresh failed (" + e.message + "); retrying.";
    }
  };
  setInterval(refresh, ${REFRESH_MS});
})();
`;

/** Where agents run (AGENT_SANDBOX), as the status page tells it. */
export interface SandboxView {
  mode: "bwrap" | "none";
  problem: string | undefined;
}

/** The page's sandbox line: plain when agents are confined, flagged when they are not or cannot start. */
function sandboxLine(sandbox: SandboxView): Html {
  if (sandbox.problem) return html`<p id="sandbox" class="overdue" role="status">${sandbox.problem} Rounds are refused until it can start.</p>`;
  if (sandbox.mode === "none") return html`<p id="sandbox" class="overdue" role="status">Agents run unsandboxed (AGENT_SANDBOX=none): they can read what the app's user can.</p>`;
  return html`<p id="sandbox" class="meta">Agents run in the bubblewrap sandbox (AGENT_SANDBOX=bwrap).</p>`;
}

/** The links between the main view and the inbox, and the sign-out button (a POST: a link could be followed by anything). */
function nav(inbox: boolean): Html {
  const current = (here: boolean) => (here ? html` aria-current="page"` : "");
  return html`<nav><a href="${STATUS_PAGE_PATH}"${current(!inbox)}>Open gates</a><a href="${STATUS_PAGE_PATH}?by=answerer"${current(inbox)}>Inbox</a>
<form method="post" action="${LOGOUT_PATH}"><button type="submit">Sign out</button></form></nav>`;
}

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

/**
 * GET /escalation[?by=answerer][&answerer=LOGIN…]: the open gates as a page, for people signed in
 * at /login (or sending the Bearer token). Requires ADMIN_TOKEN.
 */
export function statusPageHandler(services: Services, auth: AdminAuth): HttpHandler {
  return route([STATUS_PAGE_PATH], async (req, res, url) => {
    const check = auth.check(req, url);
    if (!check.ok) {
      // A browser without a (valid) session goes to the form and comes back here; a wrong Bearer token is a 401.
      if (check.reason === "none" || (check.reason === "wrong" && bearerToken(req) === undefined)) {
        res.writeHead(303, { ...PRIVATE_HEADERS, location: `${LOGIN_PATH}?next=${encodeURIComponent(url.pathname + url.search)}` }).end();
        return;
      }
      return refuse(res, check, "text");
    }
    const query = reportQuery(url);
    if ("error" in query) {
      res.writeHead(400, { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" }).end(`400: ${query.error}\n`);
      return;
    }
    let report: OpenGatesReport;
    try {
      report = await within(5000, "Redis", openGatesReport(services, query.options));
    } catch (error) {
      services.log.warn({ err: error }, "status page: could not read the open gates");
      res.writeHead(503, { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" }).end(`503: could not read the open gates: ${(error as Error).message}\n`);
      return;
    }
    const nonce = randomBytes(16).toString("base64");
    res
      .writeHead(200, {
        ...PRIVATE_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
        "x-frame-options": "DENY",
      })
      .end(req.method === "HEAD" ? undefined : renderStatusPage(report, nonce, { mode: services.sandbox.mode, problem: services.sandbox.problem }));
  });
}
