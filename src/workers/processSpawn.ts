import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Job } from "bullmq";
import { agentEnv } from "../agent/agentEnv.js";
import { maskSecrets } from "../agent/maskSecrets.js";
import { loadTemplate, renderTask } from "../agent/renderTask.js";
import { runAgent, type AgentRun } from "../agent/runAgent.js";
import { AGENT_PLACEHOLDERS } from "../config/env.js";
import { fillPlaceholders } from "../config/splitCommand.js";
import type { Gate } from "../gates/types.js";
import { sendFeedback } from "../loop/feedback.js";
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
 */
export async function processSpawn(services: Services, job: Job, signal?: AbortSignal): Promise<SpawnOutcome> {
  const data: SpawnJob = SpawnJobSchema.parse(job.data);
  const ref = { repo: data.repo, issue: data.issue };
  const jobId = job.id ?? "unknown";
  let gate: Gate | undefined;
  if (data.trigger.type === "resume") {
    gate = await services.store.getGate(data.trigger.gateId);
    if (!gate) return { skipped: "gate missing" };
    if (!(await services.store.claimResume(gate.id, jobId))) return { skipped: `gate ${gate.state}` };
  }
  const target = { installationId: data.installationId, repo: data.repo, issue: data.issue };
  const command = services.config.agent.command;
  if (!command) {
    await sendFeedback(services, target, [], "could not start the agent: the server has no AGENT_COMMAND configured (see README, Configuration)");
    return { skipped: "no AGENT_COMMAND" };
  }
  const round = await services.store.allocateRound(ref, jobId);
  const issue = await services.store.getIssue(ref);
  const history = await services.store.issueGates(ref);
  const template = await loadTemplate(services.config.taskTemplatePath);
  const task = renderTask(template, {
    repo: data.repo,
    round,
    issue: { number: data.issue, title: issue?.title ?? "", body: issue?.body ?? "", url: issue?.url ?? "" },
    gates: history,
  });
  const { token } = await services.github.agentToken(data.installationId, data.repo);
  const workdir = await mkdtemp(join(services.config.agent.workdirRoot, "escalation-"));
  const taskFile = join(workdir, "task.md");
  await writeFile(taskFile, task, "utf8");
  const argv = fillPlaceholders(command, { taskFile, repo: data.repo, issue: String(data.issue), round: String(round), workdir });
  const env = agentEnv({ token, apiUrl: services.config.baseUrl, repo: data.repo, issue: data.issue, round, taskFile }, services.config.agent.envPassthrough);
  const log = services.log.child({ repo: data.repo, issue: data.issue, round, job: jobId });
  try {
    const run = await runAgent({
      argv,
      cwd: workdir,
      env,
      input: task,
      timeoutMs: services.config.agent.timeoutSeconds * 1000,
      killGraceMs: services.config.agent.killGraceSeconds * 1000,
      signal,
      onStart: async (pid) => {
        const startedAt = Date.now();
        log.info({ pid, replyToSpawnMs: startedAt - data.receivedAt }, "agent started");
        if (gate) await services.store.markResumed(gate.id, startedAt);
        services.events.notify("agent.started", { repo: data.repo, issue: data.issue, round, replyToSpawnMs: startedAt - data.receivedAt, resumedGate: gate });
        await sendFeedback(services, target, startAcknowledgements(services, data, gate), startLine(round, data, gate), `start-${jobId}`);
      },
    });
    log.info({ exitCode: run.exitCode, signal: run.signal, ms: run.durationMs }, "agent exited");
    const outcome = !run.failed ? "success" : run.timedOut ? "timeout" : run.cancelled ? "stopped" : "failure";
    services.events.notify("agent.exited", { repo: data.repo, issue: data.issue, round, outcome, durationMs: run.durationMs });
    await sendFeedback(services, target, [], endLine(round, run, [token]));
    return { round, run };
  } finally {
    if (!services.config.agent.keepWorkdir) await rm(workdir, { recursive: true, force: true });
  }
}

function startAcknowledgements(services: Services, data: SpawnJob, gate: Gate | undefined): FeedbackOp[] {
  const ops: FeedbackOp[] = [];
  const commentId = gate?.answerCommentId ?? (data.trigger.type === "dispatch" ? data.trigger.commentId : undefined);
  if (commentId) ops.push({ type: "react", commentId, content: "rocket" });
  if (gate) ops.push({ type: "removeLabel", label: services.config.labels.awaiting });
  return ops;
}

function startLine(round: number, data: SpawnJob, gate: Gate | undefined): string {
  if (gate) return `round ${round}: agent started with the answer of @${gate.answeredBy ?? "unknown"} to gate ${gate.id}`;
  return `round ${round}: agent started (dispatched by @${data.trigger.type === "dispatch" ? data.trigger.by : "unknown"})`;
}

function endLine(round: number, run: AgentRun, secrets: string[]): string {
  const took = formatDuration(run.durationMs / 1000);
  if (!run.failed) return `round ${round}: agent finished (exit 0, ${took})`;
  const why = run.timedOut ? "timed out and was stopped" : run.cancelled ? "was stopped" : run.signal ? `was killed by ${run.signal}` : `failed (exit ${run.exitCode})`;
  const tail = run.tail.length > 0 ? `\n\n  \`\`\`text\n${run.tail.map((l) => `  ${maskSecrets(l, secrets).replace(/```/g, "ʼʼʼ")}`).join("\n")}\n  \`\`\`` : "";
  return `round ${round}: agent ${why} after ${took}${tail}`;
}
