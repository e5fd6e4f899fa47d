import type { RepoSettings } from "../config/repoConfig.js";
import type { Ask, Gate, GateAnswerers } from "../domain.js";
import { ownersOf } from "../github/codeowners.js";
import { isTeamMember } from "../github/teamMembership.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";

/**
 * Who may answer a new gate (README, "Who can answer"): with `answerers.from: codeowners` and an
 * ask about paths, the code owners of those paths (the last matching CODEOWNERS line of each, all
 * paths together); otherwise, or when no owner is known, anyone with the minimum permission. The
 * configured users and teams may always answer.
 */
export async function answerersFor(
  services: Pick<Services, "codeowners">,
  installationId: number,
  repo: string,
  ask: Ask,
  settings: RepoSettings,
): Promise<GateAnswerers> {
  const configured = { users: settings.answerers.users, teams: settings.answerers.teams };
  const byPermission = { ...configured, minimumPermission: settings.answerers.minimumPermission };
  if (settings.answerers.from !== "codeowners" || !ask.paths) return byPermission;
  const codeowners = await services.codeowners(installationId, repo);
  if (!codeowners) return byPermission;
  const users = new Set<string>();
  const teams = new Set<string>();
  for (const path of ask.paths) {
    const owners = ownersOf(codeowners, path);
    owners?.users.forEach((u) => users.add(u));
    owners?.teams.forEach((t) => teams.add(t));
  }
  if (users.size === 0 && teams.size === 0) return byPermission;
  return { ...configured, codeOwners: { users: [...users], teams: [...teams], paths: ask.paths, file: codeowners.file } };
}

/** Whether `login` (already allowed to steer the issue) may answer this gate: only its code owners when it has some. */
async function mayAnswer(services: Pick<RefusalPorts, "accessCache" | "config" | "github">, gate: Gate, login: string): Promise<boolean> {
  const answerers = gate.answerers;
  if (!answerers?.codeOwners) return true;
  const lower = login.toLowerCase();
  if (answerers.users.includes(lower) || answerers.codeOwners.users.includes(lower)) return true;
  const octokit = () => services.github.installation(gate.installationId);
  for (const team of new Set([...answerers.teams, ...answerers.codeOwners.teams])) {
    if (await isTeamMember(octokit, services.accessCache, team, login, services.config.permissionCacheSeconds)) return true;
  }
  return false;
}

/** "@alice, @acme/db-team": the code owners and configured answerers; in code spans when nobody should be notified. */
function namedAnswerers(answerers: GateAnswerers, mention = true): string {
  const owners = answerers.codeOwners;
  const names = new Set([...(owners?.users ?? []), ...answerers.users, ...(owners?.teams ?? []), ...answerers.teams]);
  return [...names].map((n) => (mention ? `@${n}` : `\`@${n}\``)).join(", ");
}

/** The `/status` reply's line saying who can answer the open question, without notifying them. */
export function whoCanAnswer(answerers: GateAnswerers | undefined): string {
  if (!answerers) return "Who can answer: anyone allowed to steer this issue.";
  const owners = answerers.codeOwners;
  if (owners) {
    const paths = owners.paths.map((p) => `\`${p}\``).join(", ");
    const configured = answerers.users.length + answerers.teams.length > 0 ? " and the configured answerers" : "";
    return `Who can answer: the code owners of ${paths} (\`${owners.file}\`)${configured}: ${namedAnswerers(answerers, false)}.`;
  }
  const listed = namedAnswerers(answerers, false);
  return `Who can answer: anyone with ${answerers.minimumPermission ?? "write"} access${listed ? `, and ${listed}` : ""}.`;
}

/** What deciding who may answer reads (team membership through GitHub, cached), and the once-per-gate refusal it writes. */
export type RefusalPorts = FeedbackPorts &
  Pick<Services, "accessCache"> & {
    config: Pick<Services["config"], "permissionCacheSeconds">;
    github: Pick<Services["github"], "installation">;
    commentMarks: Pick<Services["commentMarks"], "firstTime">;
    log: Pick<Services["log"], "info">;
  };

/**
 * Undefined when the comment's author may answer `gate`; otherwise the reply is not recorded and
 * the author is told, once per gate, who may answer instead.
 */
export async function refusedAnswer(services: RefusalPorts, event: CommentEvent, gate: Gate): Promise<Outcome | undefined> {
  const login = event.comment.author.login;
  if (await mayAnswer(services, gate, login)) return undefined;
  const owners = gate.answerers!.codeOwners!;
  if (await services.commentMarks.firstTime(`refused:${gate.id}:${login.toLowerCase()}`)) {
    const paths = owners.paths.map((p) => `\`${p}\``).join(", ");
    const configured = gate.answerers!.users.length + gate.answerers!.teams.length > 0;
    await sendFeedback(services, targetOf(event), {
      ops: [
        {
          type: "comment",
          body: `@${login} this question is about ${paths}, so only its code owners (\`${owners.file}\`)${configured ? " and the configured answerers" : ""} may answer it: ${namedAnswerers(gate.answerers!)}. Your reply was not recorded.`,
        },
      ],
      key: `refused-${event.comment.id}`,
    });
  }
  services.log.info({ repo: event.repo, issue: event.issue.number, gate: gate.id, login }, "reply refused: not a code owner");
  return { kind: "refused", why: "not a code owner" };
}
