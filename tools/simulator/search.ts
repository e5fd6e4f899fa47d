import { requireIssuesAccess, requireVisible, type Actor } from "./access.js";
import { validationFailed } from "./errors.js";
import { paginate } from "./pagination.js";
import type { Payloads } from "./payloads.js";
import type { Route } from "./router.js";
import type { Issue, Repo, SimState } from "./state.js";

/** GitHub returns at most this many results of a search, whatever the total. */
const RESULTS_CAP = 1000;

/**
 * GET /search/issues for the qualifiers a reconciliation uses: `user:`/`org:`/`repo:`, `updated:`
 * (`>=`, `>`, `<=`, `<` or a date), `is:issue`/`is:pr`, `is:open`/`is:closed`; other words must be in
 * the title or body. Only repositories the caller may read are searched; sorted by `sort` (default:
 * best match, here newest first). The index has no lag here: GitHub's may trail by seconds.
 */
export function searchRoute(state: SimState, payloads: Payloads): Route {
  return {
    method: "GET",
    template: "/search/issues",
    auth: "token",
    handle: (req) => {
      const q = req.url.searchParams.get("q");
      if (!q) throw validationFailed("Search", "missing", "q");
      const match = matcher(q);
      const order = req.url.searchParams.get("order") === "asc" ? 1 : -1;
      const sortKey = req.url.searchParams.get("sort") === "created" ? (i: Issue) => Date.parse(i.createdAt) : (i: Issue) => Date.parse(i.updatedAt);
      const found = state
        .allRepos()
        .filter((repo) => readable(req.actor, repo))
        .flatMap((repo) => [...repo.issues.values()].filter(match))
        .sort((a, b) => (sortKey(a) - sortKey(b) || a.id - b.id) * order);
      const page = paginate(found.slice(0, RESULTS_CAP), req.url);
      return {
        status: 200,
        json: { total_count: found.length, incomplete_results: false, items: page.items.map((i) => ({ ...payloads.issue(i), score: 1 })) },
        ...(page.link ? { headers: { link: page.link } } : {}),
      };
    },
  };
}

function readable(actor: Actor, repo: Repo): boolean {
  try {
    requireVisible(actor, repo);
    requireIssuesAccess(actor, "read");
    return true;
  } catch {
    return repo.private === false;
  }
}

function matcher(q: string): (issue: Issue) => boolean {
  const tests: Array<(issue: Issue) => boolean> = [];
  for (const term of q.split(/\s+/).filter(Boolean)) {
    const [qualifier, value = ""] = term.includes(":") ? [term.slice(0, term.indexOf(":")), term.slice(term.indexOf(":") + 1)] : [undefined, term];
    const lower = value.toLowerCase();
    switch (qualifier) {
      case "user":
      case "org":
        tests.push((i) => i.repo.owner.login.toLowerCase() === lower);
        break;
      case "repo":
        tests.push((i) => i.repo.fullName.toLowerCase() === lower);
        break;
      case "is":
        if (lower === "issue" || lower === "pr") tests.push((i) => (i.pullRequest !== undefined) === (lower === "pr"));
        else if (lower === "open" || lower === "closed") tests.push((i) => i.state === lower);
        else throw validationFailed("Search", "invalid", "q");
        break;
      case "updated":
        tests.push(dateTest(value));
        break;
      case undefined:
        tests.push((i) => `${i.title}\n${i.body ?? ""}`.toLowerCase().includes(lower));
        break;
      default:
        throw validationFailed("Search", "invalid", "q");
    }
  }
  return (issue) => tests.every((t) => t(issue));
}

function dateTest(value: string): (issue: Issue) => boolean {
  const [, op = "", date = ""] = /^(>=|<=|>|<)?(.+)$/.exec(value) ?? [];
  const at = Date.parse(date);
  if (Number.isNaN(at)) throw validationFailed("Search", "invalid", "q");
  const compare: Record<string, (t: number) => boolean> = {
    ">=": (t) => t >= at,
    ">": (t) => t > at,
    "<=": (t) => t <= at,
    "<": (t) => t < at,
    "": (t) => t >= at && t < at + 86_400_000,
  };
  return (issue) => compare[op]!(Date.parse(issue.updatedAt));
}
