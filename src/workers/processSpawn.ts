import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Job } from "bullmq";
import { chooseAgentCommand } from "../agent/agentCommand.js";
import { agentEnv } from "../agent/agentEnv.js";
import { maskSecrets } from "../agent/maskSecrets.js";
import { loadTemplate, renderTask } from "../agent/renderTask.js";
import { runAgent, type AgentRun } from "../agent/runAgent.js";
import { StopRequest } from "../agent/runningAgents.js";
import { fillPlaceholders } from "../config/splitCommand.js";
import { AgentError } from "../errors.js";
import type { Gate } from "../gates/types.js";
import { sendFeedback } from "../loop/feedback.js";
import { choseRetry, isLadderGate, raiseLadderGate } from "../loop/ladders.js";
import { formatDuration } from "../protocol/duration.js";
import { SpawnJobSchema, type FeedbackOp, type SpawnJob } from "../queue/jobs.js";
import type { Services } from "../services.js";

export interface SpawnOutcome {
  skipped?: string;
  round?: number;
  run?: AgentRun;
}

/**
 * Runs one agent round: claims the answered gate (once), renders the task with the whole history,
 * starts the agent with a fresh narrowed token, and reports start and end on the status comment.
 * Acknowledgements (🚀, label removal) are queued only once the process has actually started.
 * A failing agent is retried by BullMQ up to the attempt limit, then a human is asked.
 */
export async function processSpawn(services: Services, job: Job, signal?: AbortSignal): Promise<SpawnOutcome> {
  const data: SpawnJob = SpawnJobSchema.parse(job.data);
  const ref = { repo: data.repo, issue: data.issue };
  const target = { installationId: data.installationId, repo: data.repo, issue: data.issue };
  const jobId = job.id ?? "unknown";
  // BullMQ re-runs a job whose worker died; if the round had already run to its end, that is all.
  if (await services.store.roundDone(ref, jobId)) return { skipped: "round already ran" };
  const { settings } = await services.settings(data.installationId, data.repo);
  let gate: Gate | undefined;
  if (data.trigger.type === "resume") {
    gate = await services.store.getGate(data.trigger.gateId);
    if (!gate) return { skipped: "gate missing" };
    if (!(await services.store.claimResume(gate.id, jobId))) return { skipped: `gate ${gate.state}` };
    if (isLadderGate(gate)) {
      if (!choseRetry(gate)) {
        await services.store.finishResume(gate, Date.now());
        await sendFeedback(services, target, [{ type: "removeLabel", label: settings.labels.awaiting }], `@${gate.answeredBy ?? "someone"} chose not to retry; the agent is not re-run`);
        return { skipped: "human gave up" };
      }
      if (gate.ask.kind === "rounds_exhausted") {
        const issue = await services.store.getIssue(ref);
        await services.store.raiseRoundLimit(ref, (issue?.nextRound ?? 0) + settings.maxRounds);
      }
    }
  }
  // An answer or dispatch still queued when the issue was closed must not start an agent on it.
  if ((await services.store.getIssue(ref))?.state === "closed") {
    await sendFeedback(services, target, [], "the issue is closed: the queued round was not started");
    return { skipped: "issue closed" };
  }
  // The server's command, or the server's profile the repository names; never the repository's own.
  const choice = chooseAgentCommand(services.config.agent, settings.agentProfile);
  if ("problem" in choice) {
    await sendFeedback(services, target, choice.comment ? [{ type: "comment", body: choice.comment }] : [], `could not start the agent: ${choice.problem}`, `no-command-${jobId}`);
    return { skipped: choice.skipped };
  }
  const command = choice.argv;
  const round = await services.store.allocateRound(ref, jobId, settings.maxRounds);
  if (round === undefined) {
    const current = await services.store.currentRound(ref);
    await raiseLadderGate(services, target, "rounds_exhausted", `The agent has used ${current + 1} rounds on this issue, the limit. Run more rounds?`, `A human must allow more rounds so a confused agent cannot loop forever. "retry" grants ${settings.maxRounds} more.`, current);
    return { skipped: "round limit reached" };
  }
  // A re-run (dead worker, retry) of a round the issue has since moved past would redo stale work,
  // beside or after the newer round; the answer it carried is already in the newer round's task.
  if (round < (await services.store.currentRound(ref))) {
    if (gate) await services.store.finishResume(gate, Date.now());
    return { skipped: `round ${round} was superseded by a later round`, round };
  }
  const [issue, history, notes] = await Promise.all([services.store.getIssue(ref), services.store.issueGates(ref), services.store.notes(ref)]);
  const template = await loadTemplate(services.config.taskTemplatePath);
  const task = renderTask(template, {
    repo: data.repo,
    round,
    issue: { number: data.issue, title: issue?.title ?? "", body: issue?.body ?? "", url: issue?.url ?? "", author: issue?.author },
    gates: history,
    notes,
  });
  const { token } = await services.github.agentToken(data.installationId, data.repo);
  const workdir = await mkdtemp(join(services.config.agent.workdirRoot, "escalation-"));
  const taskFile = join(workdir, "task.md");
  await writeFile(taskFile, task, "utf8");
  const argv = fillPlaceholders(command, { taskFile, repo: data.repo, issue: String(data.issue), round: String(round), workdir });
  const env = agentEnv({ token, apiUrl: services.config.baseUrl, repo: data.repo, issue: data.issue, round, taskFile }, services.config.agent.envPassthrough);
  const log = services.log.child({ repo: data.repo, issue: data.issue, round, job: jobId });
  const attempt = job.attemptsMade + 1;
  const maxAttempts = job.opts.attempts ?? 1;
  let run: AgentRun;
  try {
    run = await runAgent({
      argv,
      cwd: workdir,
      env,
      input: task,
      timeoutMs: services.config.agent.timeoutSeconds * 1000,
      killGraceMs: services.config.agent.killGraceSeconds * 1000,
      signal,
      onStart: async (pid) => {
        const startedAt = Date.now();
        log.info({ pid, attempt, replyToSpawnMs: startedAt - data.receivedAt }, "agent started");
        services.events.notify("agent.started", { repo: data.repo, issue: data.issue, round, replyToSpawnMs: startedAt - data.receivedAt, resumedGate: gate });
        await sendFeedback(services, target, startAcknowledgements(settings.labels.awaiting, data, gate), startLine(round, data, gate, attempt), `start-${jobId}-${attempt}`);
      },
    });
  } finally {
    if (!services.config.agent.keepWorkdir) await rm(workdir, { recursive: true, force: true });
  }
  log.info({ exitCode: run.exitCode, signal: run.signal, ms: run.durationMs }, "agent exited");
  const stop: unknown = signal?.reason;
  // Stopped by shutdown or a lost lock, the job runs this round again; a failure with attempts left
  // is retried. Anything else ends the round: recorded first, before the worker can die again.
  const interrupted = run.cancelled && !(stop instanceof StopRequest);
  const retried = run.failed && !run.cancelled && attempt < maxAttempts;
  if (!interrupted && !retried) await finishRound(services, ref, jobId, gate);
  const outcome = !run.failed ? "success" : run.timedOut ? "timeout" : run.cancelled ? "stopped" : "failure";
  services.events.notify("agent.exited", { repo: data.repo, issue: data.issue, round, outcome, durationMs: run.durationMs });
  if (run.cancelled && stop instanceof StopRequest) {
    await sendFeedback(services, target, [], `round ${round}: agent ${stop.message} (after ${formatDuration(run.durationMs / 1000)})`);
    return { round, run };
  }
  if (run.cancelled) return { round, run }; // shutdown: the worker rethrows so BullMQ retries the round
  if (run.failed && attempt < maxAttempts) {
    await sendFeedback(services, target, [], endLine(round, run, [token], ` · attempt ${attempt} of ${maxAttempts}; retrying with backoff`));
    throw new AgentError(`agent failed in round ${round} (attempt ${attempt} of ${maxAttempts})`);
  }
  await sendFeedback(services, target, [], endLine(round, run, [token]));
  if (run.failed) {
    const tail = run.tail.map((line) => maskSecrets(line, [token])).join("\n");
    await raiseLadderGate(
      services,
      target,
      "attempts_exhausted",
      `The agent failed ${maxAttempts} time(s) in round ${round}. Retry?`,
      `Last output lines:\n\n\`\`\`text\n${tail.replace(/```/g, "ʼʼʼ") || "(no output)"}\n\`\`\``,
      round,
    );
  }
  return { round, run };
}

/** Records that the job's round ran to its end and, for a resume, that its gate is resumed. */
async function finishRound(services: Services, ref: { repo: string; issue: number }, jobId: string, gate: Gate | undefined): Promise<void> {
  await services.store.markRoundDone(ref, jobId);
  if (gate) await services.store.finishResume(gate, Date.now());
}

function startAcknowledgements(awaitingLabel: string, data: SpawnJob, gate: Gate | undefined): FeedbackOp[] {
  const ops: FeedbackOp[] = [];
  const commentId = gate?.answerCommentId ?? (data.trigger.type === "dispatch" ? data.trigger.commentId : undefined);
  if (commentId) ops.push({ type: "react", commentId, content: "rocket" });
  if (gate) ops.push({ type: "removeLabel", label: awaitingLabel });
  return ops;
}

function startLine(round: number, data: SpawnJob, gate: Gate | undefined, attempt: number): string {
  const suffix = attempt > 1 ? ` (attempt ${attempt})` : "";
  if (gate) {
    const by = gate.answeredBy === "escalation" ? "the defaults taken at timeout" : `the answer of @${gate.answeredBy ?? "unknown"}`;
    return `round ${round}: agent started with ${by} to gate ${gate.id}${suffix}`;
  }
  if (data.trigger.type === "dispatch") return `round ${round}: agent started (${data.trigger.retry ? "retry" : "dispatched"} by @${data.trigger.by})${suffix}`;
  return `round ${round}: agent started${suffix}`;
}

/** `suffix` belongs to the summary line: after the output's closing fence it would keep the fence open. */
function endLine(round: number, run: AgentRun, secrets: string[], suffix = ""): string {
  const took = formatDuration(run.durationMs / 1000);
  if (!run.failed) return `round ${round}: agent finished (exit 0, ${took})${suffix}`;
  const why = run.timedOut ? "timed out and was stopped" : run.signal ? `was killed by ${run.signal}` : `failed (exit ${run.exitCode})`;
  const tail = run.tail.length > 0 ? `\n\n  \`\`\`text\n${run.tail.map((l) => `  ${maskSecrets(l, secrets).replace(/```/g, "ʼʼʼ")}`).join("\n")}\n  \`\`\`` : "";
  return `round ${round}: agent ${why} after ${took}${suffix}${tail}`;
}
