import { UnrecoverableError, type Job } from "bullmq";
import type { SlackConfig } from "../config/appConfig.js";
import { jobIds } from "../queueNames.js";
import { MirrorJobSchema } from "../payloads.js";
import type { Queues } from "../queue/queues.js";
import type { Services } from "../services/services.js";
import { renderGateMessage } from "./message.js";
import type { SlackApi } from "./slack.js";

/** Slack errors that no retry can fix: the job fails at once instead of retrying. */
const PERMANENT = new Set([
  "channel_not_found",
  "not_in_channel",
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "missing_scope",
  "invalid_blocks",
  "msg_too_long",
  "message_not_found",
  "cant_update_message",
  "is_archived",
]);

/** What a mirror job reads and writes. */
export interface MirrorPorts extends Pick<Services, "gates" | "issues" | "slackMessages" | "settings"> {
  queues: Pick<Queues, "mirror">;
  config: SlackConfig;
  slack: SlackApi;
}

/** A job that must wait for another (the update of a message not yet posted): retried with backoff. */
class NotYet extends Error {
  override name = "NotYet";
}

/** Posts a gate's Slack message, or updates the one posted, always from the gate as it is now. */
export async function processMirrorJob(ports: MirrorPorts, job: Job): Promise<string> {
  const { type, gateId } = MirrorJobSchema.parse(job.data);
  const gate = await ports.gates.getGate(gateId);
  if (!gate) return "gate gone";
  const issue = await ports.issues.getIssue({ repo: gate.repo, issue: gate.issue });
  // Rendered from the gate as it is now, so a late or retried job never shows a stale state.
  const message = renderGateMessage(gate, issue?.title);
  const posted = await ports.slackMessages.message(gateId);
  try {
    if (posted) {
      if (type === "open") return "already posted";
      await ports.slack.update(posted, message.text, message.blocks);
      return "updated";
    }
    if (type === "update") {
      const opening = await ports.queues.mirror.getJob(jobIds.mirror("open", gateId));
      const state = opening ? await opening.getState() : "unknown";
      if (["waiting", "active", "delayed", "prioritized", "waiting-children"].includes(state)) {
        throw new NotYet(`the Slack message of gate ${gateId} is not posted yet (its job is ${state})`);
      }
      // The opening message never made it: post the gate's final state instead of nothing.
    }
    // A repository may send its gates to its own channel (`slack.channel` in .github/escalation.yml).
    const { settings } = await ports.settings(gate.installationId, gate.repo);
    const sent = await ports.slack.post(settings.slackChannel ?? ports.config.channel, message.text, message.blocks);
    await ports.slackMessages.recordMessage(gateId, sent);
    return "posted";
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code && PERMANENT.has(code)) throw new UnrecoverableError(`Slack refused (${code}); not retrying`);
    throw error;
  }
}
