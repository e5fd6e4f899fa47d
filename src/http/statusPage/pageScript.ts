import { LOGIN_PATH } from "../auth.js";
import { REFRESH_MS } from "./pagePaths.js";

/** The page's script: re-reads the JSON every few seconds and redraws with textContent only (no HTML from data). */
export const SCRIPT = `
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
