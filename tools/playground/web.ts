import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type GitHubSimulator } from "../simulator/index.js";
import { ActForm, FormRefused, NewIssueForm, parseForm, readForm } from "./forms.js";
import { Notices } from "./notices.js";
import { paths, ROUTES } from "./paths.js";
import { LOGINS } from "./people.js";
import { PAGE_SCRIPT } from "./script.js";
import { issueListFragment, issueListPage, notFoundPage, threadFragment, threadPage, type PageLinks } from "./views.js";

/** What the pages read and do on the simulated GitHub, each as the person chosen on the page. */
export type PlaygroundSim = Pick<
  GitHubSimulator,
  "botLogin" | "issues" | "issue" | "comments" | "issueEvents" | "createIssue" | "comment" | "addLabels" | "closeIssue" | "reopenIssue"
>;

export interface PlaygroundWebOptions {
  sim: PlaygroundSim;
  /** The one repository the pages show. */
  repo: string;
  links: PageLinks;
  /** This process's form token. */
  token: string;
  /** The label that dispatches an agent. */
  dispatchLabel: string;
}

const HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  // Only the page's own script runs; forms post only here.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/** The playground's web pages: the issues as GitHub shows them, and forms to act on them as a chosen person. */
export function playgroundWeb(options: PlaygroundWebOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { sim, repo, links } = options;
  const notices = new Notices();
  const known = (name: string) => name.toLowerCase() === repo.toLowerCase();
  const find = (n: number) => sim.issues(repo).find((issue) => issue.number === n);
  const asOf = (url: URL) => {
    const as = url.searchParams.get("as");
    return as !== null && LOGINS.includes(as) ? as : LOGINS[0];
  };
  const live = (n: number) => {
    const issue = sim.issue(repo, n);
    return threadFragment(issue, sim.comments(repo, n), sim.issueEvents(repo, n), sim.botLogin);
  };
  /** After a POST: back to the page, keeping the person picked, with what happened when it went wrong. */
  const back = (res: ServerResponse, to: string, as: string, notice?: string) => {
    const query = new URLSearchParams({ as, ...(notice ? { notice: notices.add(notice) } : {}) });
    send(res, 303, "text/plain", "", { location: `${to}?${query.toString()}` });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://playground.invalid");
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (req.method === "GET" || req.method === "HEAD") {
      if (path === paths.home) return send(res, 303, "text/plain", "", { location: paths.issueList(repo) });
      if (path === paths.script) return send(res, 200, "text/javascript", PAGE_SCRIPT);
      if ((m = ROUTES.issueList.exec(path)) && known(m[1]!)) {
        return send(
          res,
          200,
          "text/html",
          issueListPage(repo, sim.issues(repo), { token: options.token, as: asOf(url) }, links, notices.take(url.searchParams.get("notice"))),
        );
      }
      if ((m = ROUTES.liveList.exec(path)) && known(m[1]!)) return send(res, 200, "text/html", issueListFragment(repo, sim.issues(repo)).value);
      if ((m = ROUTES.issue.exec(path)) && known(m[1]!)) {
        const issue = find(Number(m[2]));
        if (!issue) return send(res, 404, "text/html", notFoundPage(links, `There is no issue #${m[2]} in ${repo}.`));
        return send(
          res,
          200,
          "text/html",
          threadPage(repo, issue, live(issue.number), { token: options.token, as: asOf(url) }, links, notices.take(url.searchParams.get("notice"))),
        );
      }
      if ((m = ROUTES.liveIssue.exec(path)) && known(m[1]!) && find(Number(m[2]))) return send(res, 200, "text/html", live(Number(m[2])).value);
      return send(res, 404, "text/html", notFoundPage(links, `Nothing is at ${path}.`));
    }
    if (req.method !== "POST") return send(res, 405, "text/plain", "Only GET and POST.", { allow: "GET, POST" });
    try {
      if ((m = ROUTES.newIssue.exec(path)) && known(m[1]!)) {
        const form = parseForm(NewIssueForm, await readForm(req, options.token));
        const opened = attempt(`@${form.as} could not open the issue`, () => sim.createIssue(repo, { title: form.title, body: form.body, author: form.as }));
        return opened.ok ? back(res, paths.issue(repo, opened.value.number), form.as) : back(res, paths.issueList(repo), form.as, opened.refusal);
      }
      if ((m = ROUTES.act.exec(path)) && known(m[1]!) && find(Number(m[2]))) {
        const n = Number(m[2]);
        const form = parseForm(ActForm, await readForm(req, options.token));
        const done = attempt(`@${form.as} could not ${form.action === "label" ? `add the ${options.dispatchLabel} label to` : form.action} #${n}`, () => {
          if (form.action === "comment") sim.comment(repo, n, form.as, form.body);
          else if (form.action === "label") sim.addLabels(repo, n, form.as, [options.dispatchLabel]);
          else if (form.action === "close") sim.closeIssue(repo, n, form.as);
          else sim.reopenIssue(repo, n, form.as);
        });
        return back(res, paths.issue(repo, n), form.as, done.ok ? undefined : done.refusal);
      }
      return send(res, 404, "text/plain", `Nothing to post to at ${path}.`);
    } catch (error) {
      if (error instanceof FormRefused) return send(res, error.status, "text/plain", error.message);
      throw error;
    }
  };
  return (req, res) =>
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, "text/plain", `The playground failed: ${(error as Error).message}`);
      else res.destroy();
    });
}

/** The operation's result, or what GitHub (the simulator) answered when it refused: the person lacks the access, say. */
function attempt<T>(what: string, operation: () => T): { ok: true; value: T } | { ok: false; refusal: string } {
  try {
    return { ok: true, value: operation() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, refusal: `${what}: GitHub answered ${error.status} "${error.message}".` };
    throw error;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...HEADERS, "content-type": `${type}; charset=utf-8`, ...headers });
  res.end(body);
}
