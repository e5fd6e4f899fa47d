import type { CHANNEL_PATHS } from "../channel/channelPaths.js";
import type { AskEnv } from "./ask/askEnv.js";
import type { AskTarget } from "./ask/askTarget.js";
import { channelOf, postThroughChannel } from "./channel.js";
import { postIssueComment } from "./github.js";
import { UsageError } from "./usage.js";

/** What to post: the request the round channel takes, and the comment GITHUB_TOKEN posts when there is none. */
export interface Posting {
  path: (typeof CHANNEL_PATHS)[keyof typeof CHANNEL_PATHS];
  payload: unknown;
  body: string;
}

/**
 * Posts on the target issue and returns the comment's URL: in a round through the app's round
 * channel (ESCALATION_CHANNEL_URL), which posts as the App on the round's own issue only; by hand,
 * with GITHUB_TOKEN.
 */
export async function postOnIssue(env: AskEnv, target: AskTarget, posting: Posting): Promise<string> {
  const channel = channelOf(env);
  if (channel) {
    if (target.repo.toLowerCase() !== (env.GITHUB_REPOSITORY ?? "").toLowerCase() || String(target.issue) !== env.ESCALATION_ISSUE) {
      throw new UsageError(
        `A round's agent posts on its own issue only (${env.GITHUB_REPOSITORY ?? "GITHUB_REPOSITORY"}#${env.ESCALATION_ISSUE ?? "ESCALATION_ISSUE"}), not ${target.repo}#${target.issue}: drop --repo and --issue.`,
      );
    }
    return postThroughChannel(channel, env, posting.path, posting.payload);
  }
  return postIssueComment(
    { token: env.GITHUB_TOKEN, apiUrl: env.GITHUB_API_URL, proxy: env },
    target.repo,
    target.issue,
    posting.body,
    "GITHUB_TOKEN is not set; the app sets it for agents it spawns.",
  );
}
