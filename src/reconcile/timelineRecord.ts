/**
 * What the issue's timeline says of the asks the status comment holds no settled outcome of: a happy
 * round trip writes no status comment, only the awaiting label on and off (README, "GitHub's
 * limits"). The replies and the label's history are read only when such an ask lost its gate.
 */
import type { RepoSettings } from "../config/repoConfig.js";
import { approvalRule } from "../gates/approvalGate.js";
import { agentLogin } from "../github/agentLogins.js";
import type { InstallationOctokit } from "../github/octokit.js";
import type { Services } from "../services/services.js";
import type { StatusState } from "../status/statusComment.js";
import type { AskComment } from "./askComments.js";
import type { ReplySnapshot } from "./reviewReplies.js";
import { resumedOnTimeline, withTimeline, type LabelEvent, type TimelineComment } from "./timeline.js";

/** What reading the timeline needs: the gates Redis holds, and who the App's bot and the agents are. */
export interface TimelineRecordPorts {
  gates: Pick<Services["gates"], "getGate">;
  github: Pick<Services["github"], "identity">;
  config: Pick<Services["config"], "agentLogins">;
}

/**
 * The status comment's record, completed from the issue's timeline for the asks Redis lost that it
 * holds no settled outcome of. Reads the issue's events only when such an ask exists.
 */
export async function withTimelineIfNeeded(
  services: TimelineRecordPorts,
  octokit: InstallationOctokit,
  where: { owner: string; name: string; number: number },
  asks: readonly AskComment[],
  /** The replies, each in its author's own words; read only when the timeline is. */
  readReplies: () => Promise<readonly ReplySnapshot[]>,
  state: StatusState | undefined,
  settings: RepoSettings,
  mayAnswer: (login: string, type: string) => Promise<boolean>,
): Promise<StatusState | undefined> {
  const settled = new Set(["resumed", "superseded", "cancelled"]);
  let needed = false;
  for (const { comment } of asks) {
    const known = state?.gates.find((g) => g.id === String(comment.id));
    if (known && settled.has(known.state)) continue;
    if (!(await services.gates.getGate(String(comment.id)))) needed = true;
  }
  if (!needed) return state;
  const identity = await services.github.identity();
  const isAgent = agentLogin(identity.botLogin, services.config.agentLogins);
  const comments = await readReplies();
  const params = { owner: where.owner, repo: where.name, issue_number: where.number, per_page: 100 };
  const readEvents = async () => (await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/events", params)) as LabelEvent[];
  const events = (await labelNeeded(services, asks.at(-1), comments, state, isAgent)) ? await readEvents() : [];
  const answerers = new Set<string>();
  const firstAsk = Date.parse(asks[0]?.comment.created_at ?? "") || 0;
  for (const c of comments) {
    if (!c.user || isAgent(c.user.login) || c.user.type === "Bot" || answerers.has(c.user.login) || Date.parse(c.created_at) < firstAsk) continue;
    if (await mayAnswer(c.user.login, c.user.type)) answerers.add(c.user.login);
  }
  const resumed = resumedOnTimeline({
    asks,
    comments,
    events,
    appLogin: identity.botLogin,
    awaitingLabel: settings.labels.awaiting,
    isAnswerer: (c: TimelineComment) => c.user !== null && answerers.has(c.user.login),
    recorded: (id) => ["answered", "resuming"].includes(state?.gates.find((g) => g.id === id)?.state ?? ""),
    approvalRule: (ask) => approvalRule(ask, settings),
  });
  return withTimeline(state, resumed);
}

/**
 * Whether the label's changes can tell anything of the newest ask: only it is judged by them (an older
 * ask ends where the next begins), and only when Redis lost its gate, the record holds it answered or
 * a person (no agent, no bot) wrote after it. Otherwise it is open whatever the events say, and the
 * usual rebuild of a waiting question (a comments page) costs no read of them.
 */
async function labelNeeded(
  services: Pick<TimelineRecordPorts, "gates">,
  newest: { comment: ReplySnapshot } | undefined,
  comments: readonly ReplySnapshot[],
  state: StatusState | undefined,
  isAgent: (login: string) => boolean,
): Promise<boolean> {
  if (!newest || (await services.gates.getGate(String(newest.comment.id)))) return false;
  const known = state?.gates.find((g) => g.id === String(newest.comment.id));
  if (known) return true;
  const askedAt = Date.parse(newest.comment.created_at);
  const byPerson = (c: ReplySnapshot) => c.user !== null && !isAgent(c.user.login) && c.user.type !== "Bot";
  return comments.some((c) => c.id !== newest.comment.id && byPerson(c) && Date.parse(c.created_at) >= askedAt - 1000);
}
