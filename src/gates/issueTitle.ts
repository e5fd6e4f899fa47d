import type { TitleEdit } from "../domain.js";
import type { IssueEditedEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";
import { agentLogin } from "../github/agentLogins.js";

/**
 * The issue's title heads the agent's task. The agent's token acts as the App's bot and may change
 * any issue's title, and the app never does: so a title changed under a bot's name (the App's bot,
 * an `AGENT_LOGINS` login, any Bot account) is not taken; the task keeps the last title a person
 * gave the issue (its author, or a maintainer retitling it) until a person changes it again.
 */

/** The title the task and the app's pull request take. */
export function titleForTask(record: { title: string; titleEdit?: TitleEdit }): string {
  return record.titleEdit ? record.titleEdit.personsTitle : record.title;
}

/** Who counts as a bot: the App's bot and the configured agent logins. */
export interface BotJudgePorts {
  config: Pick<Services["config"], "agentLogins">;
  github: Pick<Services["github"], "identity">;
}

/** What recording a title edit touches, beyond judging who made it. */
export type IssueTitlePorts = FeedbackPorts &
  BotJudgePorts & {
    issues: Pick<Services["issues"], "getIssue" | "issueTitleEdited">;
    commentMarks: Pick<Services["commentMarks"], "firstTime">;
    log: Pick<Services["log"], "warn">;
  };

/** Whether an account is of the bot identity the agent may act as, or another bot. */
export async function isBotIdentity(services: BotJudgePorts, sender: { login: string; type: string }): Promise<boolean> {
  return botJudge(services, (await services.github.identity()).botLogin)(sender);
}

/** The same judgement, synchronous once the App's bot login is known. */
export function botJudge(services: Pick<BotJudgePorts, "config">, botLogin: string): (actor: { login: string; type: string }) => boolean {
  const isAgent = agentLogin(botLogin, services.config.agentLogins);
  return (actor) => actor.type === "Bot" || isAgent(actor.login);
}

/**
 * `issues.edited` (or `pull_request.edited`) that changed the title: records whose title it is,
 * before the payload's title is stored. A bot's change of an issue the app has worked on is said
 * once per edit on its status comment, and logged. Undefined when the title did not change.
 */
export async function titleEdited(services: IssueTitlePorts, event: IssueEditedEvent): Promise<Outcome | undefined> {
  if (event.previousTitle === undefined) return undefined;
  const ref = { repo: event.repo, issue: event.issue.number };
  const byBot = await isBotIdentity(services, event.sender);
  const before = await services.issues.getIssue(ref);
  await services.issues.issueTitleEdited(ref, { title: event.issue.title, byBot, editor: event.sender.login, previous: event.previousTitle });
  if (!byBot) return { kind: "titleEdited", editor: event.sender.login, byBot: false };
  const kept = titleForTask((await services.issues.getIssue(ref)) ?? { title: event.previousTitle });
  services.log.warn({ ...ref, by: event.sender.login }, "the issue's title was changed under a bot's name; the task keeps the title a person gave it");
  if (before?.nextRound && (await services.commentMarks.firstTime(`bot-title:${event.repo.toLowerCase()}#${event.issue.number}:${event.deliveryId}`))) {
    await sendFeedback(services, targetOf(event), {
      line: `⚠️ @${event.sender.login} changed the issue's title; the app did not, so the agent's task keeps the title a person gave it: "${kept.replace(/[\r\n]+/g, " ").slice(0, 200)}".`,
    });
  }
  return { kind: "titleEdited", editor: event.sender.login, byBot: true };
}
