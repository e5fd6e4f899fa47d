import { Html, html } from "../../src/http/html.js";
import type { SimComment, SimIssue } from "../simulator/index.js";
import { renderMarkdown } from "./markdown.js";
import { PEOPLE } from "./people.js";
import { paths } from "./paths.js";

/** What every page links to, besides the issues. */
export interface PageLinks {
  statusPage: string;
  inbox: string;
}

/** A form's hidden fields: the per-process token that makes a cross-site POST useless. */
export interface FormContext {
  token: string;
  /** Who the pickers preselect. */
  as: string;
}

export interface TimelineEvent {
  event: string;
  label?: string;
  actor: string;
  created_at: string;
}

const STYLE = `
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 0; background: #fff; }
header.top { background: #24292f; color: #fff; padding: 10px 24px; display: flex; gap: 18px; align-items: center; }
header.top a { color: #fff; text-decoration: none; font-weight: 600; }
main { max-width: 920px; margin: 20px auto; padding: 0 24px; }
h1 { font-weight: 400; font-size: 26px; margin: 0 0 8px; } h1 .number { color: #59636e; }
.badge { display: inline-block; border-radius: 2em; padding: 3px 12px; color: #fff; font-weight: 600; }
.badge.open { background: #1f883d; } .badge.closed { background: #8250df; }
.label { display: inline-block; border-radius: 2em; padding: 0 8px; background: #ddf4ff; border: 1px solid #54aeff; font-size: 12px; font-weight: 600; }
ol.timeline { list-style: none; padding: 0; }
li.comment { border: 1px solid #d1d9e0; border-radius: 6px; margin: 16px 0; }
li.comment > .head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 6px 12px; border-radius: 6px 6px 0 0; color: #59636e; }
li.comment.bot > .head { background: #ddf4ff; }
.author { color: #1f2328; font-weight: 600; } .bot-badge { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px; font-size: 12px; }
.markdown { padding: 4px 14px; overflow-wrap: anywhere; }
.markdown table { border-collapse: collapse; } .markdown td, .markdown th { border: 1px solid #d1d9e0; padding: 4px 10px; }
.markdown code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; } .markdown pre { background: #f6f8fa; padding: 10px; overflow: auto; }
.markdown blockquote { border-left: 4px solid #d1d9e0; margin: 0; padding-left: 12px; color: #59636e; }
li.event { color: #59636e; margin: 8px 14px; }
form { border: 1px solid #d1d9e0; border-radius: 6px; padding: 12px; margin: 16px 0; display: grid; gap: 8px; }
textarea { min-height: 90px; font: inherit; padding: 6px; } input[type=text] { font: inherit; padding: 4px 6px; }
button { font: inherit; padding: 4px 14px; border-radius: 6px; border: 1px solid #d1d9e0; background: #f6f8fa; cursor: pointer; }
button.primary { background: #1f883d; color: #fff; border-color: #1a7f37; }
.actions { display: flex; gap: 8px; }
#notice { padding: 8px 12px; border-radius: 6px; background: #fff8c5; border: 1px solid #d4a72c; }
ul.issues { list-style: none; padding: 0; border: 1px solid #d1d9e0; border-radius: 6px; }
ul.issues li { padding: 8px 12px; border-top: 1px solid #d1d9e0; } ul.issues li:first-child { border-top: 0; }
.meta { color: #59636e; }
`;

export function layout(title: string, links: PageLinks, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<style>${new Html(STYLE)}</style>
<script src="${paths.script}" defer></script>
</head>
<body>
<header class="top">
  <a id="nav-issues" href="${paths.home}">Issues</a>
  <a id="nav-status" href="${links.statusPage}">Status page</a>
  <a id="nav-inbox" href="${links.inbox}">Inbox</a>
  <span class="meta">escalation playground</span>
</header>
<main>${body}</main>
</body>
</html>
`.value;
}

function personPicker(id: string, as: string): Html {
  return html`<label>as <select name="as" id="${id}">${PEOPLE.map(
    (p) => html`<option value="${p.login}"${p.login === as ? html` selected` : ""}>@${p.login} (${p.role})</option>`,
  )}</select></label>`;
}

function time(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(11, 19)} UTC</time>`;
}

function labels(names: readonly string[]): Html {
  return names.length === 0
    ? html`<span class="meta">No labels</span>`
    : html`${names.map((name) => html`<span class="label" data-label="${name}">${name}</span> `)}`;
}

/** The issues, newest last, for the list page's live part. */
export function issueListFragment(repo: string, issues: readonly SimIssue[]): Html {
  if (issues.length === 0) return html`<p class="meta" id="no-issues">No issues yet: open one below.</p>`;
  return html`<ul class="issues">${issues.map(
    (issue) => html`<li data-issue="${issue.number}">
      <span class="badge ${issue.state}">${issue.state}</span>
      <a href="${paths.issue(repo, issue.number)}">${issue.pull_request ? "Pull request " : ""}#${issue.number} ${issue.title}</a>
      ${labels(issue.labels)}
      <span class="meta">by @${issue.user.login}, ${issue.comments} comment${issue.comments === 1 ? "" : "s"}</span>
    </li>`,
  )}</ul>`;
}

export function issueListPage(repo: string, issues: readonly SimIssue[], form: FormContext, links: PageLinks, notice: string | undefined): string {
  return layout(
    `${repo} issues · escalation playground`,
    links,
    html`<h1>${repo} issues</h1>
      ${notice ? html`<p id="notice" role="alert">${notice}</p>` : ""}
      <div id="live" data-src="${paths.liveList(repo)}">${issueListFragment(repo, issues)}</div>
      <form id="new-issue" method="post" action="${paths.newIssue(repo)}">
        <strong>New issue</strong>
        <input type="hidden" name="token" value="${form.token}">
        <input type="text" name="title" id="title" placeholder="Title" required maxlength="256">
        <textarea name="body" id="issue-body" placeholder="Description (Markdown)"></textarea>
        <div class="actions">${personPicker("new-as", form.as)}<button class="primary" type="submit" id="open-issue">Open issue</button></div>
      </form>
      <p class="meta">An issue starts an agent when someone with write access labels it <code>agent</code> or comments <code>/agent</code>.</p>`,
  );
}

function eventText(event: TimelineEvent): Html {
  switch (event.event) {
    case "labeled":
      return html`added the ${labels([event.label ?? ""])} label`;
    case "unlabeled":
      return html`removed the ${labels([event.label ?? ""])} label`;
    case "closed":
      return html`closed this`;
    case "reopened":
      return html`reopened this`;
    default:
      return html`${event.event}`;
  }
}

interface Entry {
  at: string;
  item: Html;
}

function commentItem(comment: SimComment, botLogin: string): Html {
  const bot = comment.user.login === botLogin || comment.user.type === "Bot";
  return html`<li class="comment${bot ? " bot" : ""}" id="issuecomment-${comment.id}" data-author="${comment.user.login}">
      <div class="head"><span class="author">@${comment.user.login}</span>${bot ? html` <span class="bot-badge">bot</span>` : ""} commented at ${time(comment.created_at)}${comment.updated_at !== comment.created_at ? html` · edited` : ""}</div>
      <div class="markdown">${new Html(renderMarkdown(comment.body))}</div>
    </li>`;
}

/** The part of the issue page that polling refreshes: state, labels, the timeline, close or reopen. */
export function threadFragment(issue: SimIssue, comments: readonly SimComment[], events: readonly TimelineEvent[], botLogin: string): Html {
  const entries: Entry[] = [
    ...comments.map((comment) => ({ at: comment.created_at, item: commentItem(comment, botLogin) })),
    ...events.map((event) => ({
      at: event.created_at,
      item: html`<li class="event" data-event="${event.event}"><span class="author">@${event.actor}</span> ${eventText(event)} at ${time(event.created_at)}</li>`,
    })),
  ];
  // Stable: at the same second, comments before label changes.
  entries.sort((a, b) => a.at.localeCompare(b.at));
  return html`<p class="state"><span class="badge ${issue.state}" id="state">${issue.state === "open" ? "Open" : "Closed"}</span>
      <span class="meta">@${issue.user.login} opened this ${issue.pull_request ? "pull request" : "issue"} at ${time(issue.created_at)} · ${issue.comments} comment${issue.comments === 1 ? "" : "s"}</span></p>
    <p id="labels">Labels: ${labels(issue.labels)}</p>
    <ol class="timeline">
      <li class="comment" id="issue-body" data-author="${issue.user.login}">
        <div class="head"><span class="author">@${issue.user.login}</span> opened at ${time(issue.created_at)}</div>
        <div class="markdown">${issue.body ? new Html(renderMarkdown(issue.body)) : html`<p class="meta">No description provided.</p>`}</div>
      </li>
      ${entries.map((e) => e.item)}
    </ol>
    <div class="actions">
      <button form="act" type="submit" name="action" value="label" id="label-agent">Label <code>agent</code></button>
      ${
        issue.state === "open"
          ? html`<button form="act" type="submit" name="action" value="close" id="close">Close issue</button>`
          : html`<button form="act" type="submit" name="action" value="reopen" id="reopen">Reopen issue</button>`
      }
    </div>`;
}

export function threadPage(repo: string, issue: SimIssue, live: Html, form: FormContext, links: PageLinks, notice: string | undefined): string {
  return layout(
    `${issue.title} · ${repo}#${issue.number}`,
    links,
    html`<h1><span class="title">${issue.title}</span> <span class="number">#${issue.number}</span></h1>
      ${notice ? html`<p id="notice" role="alert">${notice}</p>` : ""}
      <div id="live" data-src="${paths.liveIssue(repo, issue.number)}">${live}</div>
      <form id="act" method="post" action="${paths.act(repo, issue.number)}">
        <input type="hidden" name="token" value="${form.token}">
        <textarea name="body" id="comment-body" placeholder="Leave a comment (Markdown)"></textarea>
        <div class="actions">${personPicker("as", form.as)}<button class="primary" type="submit" name="action" value="comment" id="comment">Comment</button></div>
      </form>`,
  );
}

export function notFoundPage(links: PageLinks, what: string): string {
  return layout("Not found · escalation playground", links, html`<h1>Not found</h1><p>${what}</p><p><a href="${paths.home}">Back to the issues</a></p>`);
}
