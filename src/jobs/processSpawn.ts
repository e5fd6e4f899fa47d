import { rm } from "node:fs/promises";
import { chooseAgentCommand } from "../agent/agentCommand.js";
import { postAskFile } from "../agent/postAskFile.js";
import { cachedTemplate } from "../agent/renderTask.js";
import { runAgent, type AgentRun } from "../agent/runAgent.js";
import type { RoundSandbox } from "../sandbox/round.js";
import { StopRequest } from "../agent/runningAgents.js";
import { AgentError, SandboxError } from "../errors.js";
import { sendFeedback } from "../status/feedback.js";
import { choseRetry, isRetryGate, raiseRetryGate } from "../gates/retryGates.js";
import type { FeedbackOp, SpawnJob } from "./payloads.js";
import type { SpawnTask } from "./spawnQueue.js";
import type { Services } from "../services.js";
import { titleForTask } from "../gates/issueTitle.js";
import { acknowledgeStart, alreadyRan, finishRound, issueFromGitHub, overtaken, redisSettled, type SpawnContext } from "./roundGuards.js";
import { deliverRound, openWorkspace, saveRoundWork } from "./roundCheckout.js";
import { prepareRoundInputs } from "./roundInputs.js";
import { endLine, failureDetails, startLine, stoppedLine } from "./roundLines.js";
import { roundTiming, runOutcome } from "./roundTiming.js";
import type { SpawnOutcome } from "./spawnOutcome.js";

/**
 * Runs one agent round: claims the answered gate (once), renders the task with the whole history,
 * starts the agent with a fresh narrowed token, and reports start and end on the status comment.
 * 🚀 on a dispatching command is written only once the process has actually started; a resumed
 * round takes the awaiting label off when it ends (README, "GitHub's limits").
 * A failing agent is retried by the spawn worker up to the attempt limit, then a human is asked.
 */
export async function processSpawn(
  services: Services,
  job: SpawnTask,
  data: SpawnJob,
  signal?: AbortSignal,
  context: SpawnContext = {},
): Promise<SpawnOutcome> {
  const ref = { repo: data.repo, issue: data.issue };
  const target = { installationId: data.installationId, repo: data.repo, issue: data.issue };
  const jobId = job.id;
  // Everything before the fork is a handful of round trips: each await here delays the agent.
  const [ran, { settings }, gate] = await Promise.all([
    alreadyRan(services, job, data),
    services.settings(data.installationId, data.repo),
    data.trigger.type === "resume" ? services.gates.getGate(data.trigger.gateId) : undefined,
  ]);
  if (ran) return { skipped: ran };
  if (data.trigger.type === "resume" && !gate) return { skipped: "gate missing" };
  // Takes off the awaiting label of a round that resumed a gate: sent however it ends early; a finished one sends it as labelOff says.
  const awaitingOff: FeedbackOp[] = gate ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [];
  // The server's command, or the server's profile the repository names; never the repository's own.
  const choice = chooseAgentCommand(services.config.agent, settings.agentProfile);
  const retryGate = gate && isRetryGate(gate) ? { retry: choseRetry(gate), kind: gate.ask.kind } : undefined;
  const start = await services.rounds.beginRound(ref, jobId, {
    claimGate: gate?.id,
    // A resume runs a round after the one that asked, even if Redis lost the issue's round counter.
    allocate: retryGate?.retry === false || "problem" in choice ? undefined : { maxRounds: settings.maxRounds, lowest: gate ? gate.round + 1 : 0 },
    raiseLimitBy: retryGate?.retry && retryGate.kind === "rounds_exhausted" ? settings.maxRounds : 0,
  });
  if (start.claim === "done") return { skipped: "round already ran" };
  if (start.claim !== "claimed") return { skipped: `gate ${start.claim}` };
  if (gate && retryGate?.retry === false) {
    await services.gates.finishResume(gate, Date.now());
    await sendFeedback(services, target, { ops: awaitingOff, line: `@${gate.answeredBy ?? "someone"} chose not to retry; the agent is not re-run` });
    return { skipped: "human gave up" };
  }
  // An answer or dispatch still queued when the issue was closed must not start an agent on it.
  if (start.closed) {
    await sendFeedback(services, target, { ops: awaitingOff, line: "the issue is closed: the queued round was not started" });
    return { skipped: "issue closed" };
  }
  if ("problem" in choice) {
    await sendFeedback(services, target, {
      ops: choice.comment ? [{ type: "comment", body: choice.comment }] : [],
      line: `could not start the agent: ${choice.problem}`,
      key: `no-command-${jobId}`,
    });
    return { skipped: choice.skipped };
  }
  const { round, currentRound: current } = start;
  if (round === undefined) {
    await raiseRetryGate(
      services,
      target,
      "rounds_exhausted",
      `The agent has used ${current + 1} rounds on this issue, the limit. Run more rounds?`,
      `A human must allow more rounds so a confused agent cannot loop forever. "retry" grants ${settings.maxRounds} more.`,
      current,
    );
    return { skipped: "round limit reached" };
  }
  if (!(await redisSettled(services, context, start.epoch, signal))) return { skipped: "stopped while Redis settled", round };
  const [{ issue: recorded, gates: stored, notes, currentRound }, template] = await Promise.all([
    services.rounds.roundContext(ref),
    cachedTemplate(services.config.taskTemplatePath),
  ]);
  const stale = await overtaken(services, job, jobId, ref, round, currentRound, stored, gate);
  if (stale) return { skipped: stale, round };
  const issue = recorded ?? (await issueFromGitHub(services, data));
  // The answer this round resumes with is in its task even if Redis lost the history since the claim.
  const resumed = gate;
  const history = resumed && !stored.some((g) => g.id === resumed.id) ? [...stored, resumed] : stored;
  const log = services.log.child({ repo: data.repo, issue: data.issue, round, job: jobId });
  const workspace = settings.workspace.enabled ? await openWorkspace(services, data, round, settings.workspace, target) : undefined;
  if (workspace?.kind === "refused") {
    log.warn({ problem: workspace.problem }, "the workspace was refused");
    await finishRound(services, ref, jobId, gate);
    const ops: FeedbackOp[] = [{ type: "comment", body: workspace.comment }, ...awaitingOff];
    await sendFeedback(services, target, {
      ops,
      line: `round ${round}: not started: the checkout needs the permission Contents: write`,
      key: `workspace-refused-${jobId}`,
    });
    return { skipped: "workspace refused", round };
  }
  const prepared = workspace?.prepared;
  const inputs = await prepareRoundInputs(services, {
    data,
    round,
    issue,
    history,
    notes,
    template,
    command: choice,
    workspace,
    pullRequest: settings.workspace.pullRequest,
  });
  const { task, secrets, workdir, taskFile, askFile, recipe, argv, env } = inputs;
  const attempt = job.attemptsMade + 1;
  const maxAttempts = job.attempts;
  // Started more often than it failed: an earlier start of this attempt never ended (a runner lost, a shutdown).
  const again = job.attemptsStarted > attempt;
  let run: AgentRun;
  let askLine: string;
  let saved: Awaited<ReturnType<typeof saveRoundWork>> | undefined;
  let delivered: string;
  try {
    let sandbox: RoundSandbox | undefined;
    try {
      sandbox = await services.sandbox.forRound({ workdir, taskFile, recipeDir: recipe?.dir });
      run = await runAgent({
        argv,
        cwd: workdir,
        env: sandbox ? sandbox.env(env) : env,
        sandbox,
        input: task,
        timeoutMs: services.config.agent.timeoutSeconds * 1000,
        killGraceMs: services.config.agent.killGraceSeconds * 1000,
        signal,
        onStart: async (pid) => {
          const startedAt = Date.now();
          log.info({ pid, attempt, replyToSpawnMs: startedAt - data.receivedAt }, "agent started");
          services.events.notify("agent.started", {
            repo: data.repo,
            issue: data.issue,
            round,
            replyToSpawnMs: startedAt - data.receivedAt,
            resumedGate: gate,
          });
          // Acknowledgements only: failing to queue them (Redis blinked) must not stop a round that started.
          await sendFeedback(services, target, {
            ops: await acknowledgeStart(services, data, gate),
            line: startLine(round, data, gate, attempt, services.config.role === "runner" ? services.config.runnerName : undefined, again),
            // One line per start: a start taken up after a runner died is shown too.
            key: `start-${jobId}-${job.attemptsStarted}`,
            quiet: true,
          }).catch((error: unknown) => log.warn({ err: error }, "could not queue the start acknowledgements"));
        },
      });
      // Posted however the agent exited, and before the save: the file is never committed.
      askLine = await postAskFile(services, { path: askFile, env, repo: data.repo, issue: data.issue, round });
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      // Not retried: the host must be fixed first (README, "The sandbox"); the agent never runs unsandboxed.
      log.error({ err: error }, "the agent sandbox did not start; the round ends without running the agent");
      await finishRound(services, ref, jobId, gate);
      await sendFeedback(services, target, {
        ops: awaitingOff,
        line: `round ${round}: not started: ${error.message} Then comment \`/retry\`.`,
        key: `sandbox-${jobId}`,
      });
      return { skipped: "sandbox did not start", round };
    } finally {
      sandbox?.release();
      await recipe?.dispose();
      if (!prepared && !services.config.agent.keepWorkdir) await rm(workdir, { recursive: true, force: true });
    }
    log.info({ exitCode: run.exitCode, signal: run.signal, ms: run.durationMs }, "agent exited");
    // Whatever the agent left is pushed before the round is recorded as ended, however it ended.
    saved = prepared ? await saveRoundWork(prepared, log) : undefined;
    // A pull request's own conversation works on its head branch: that pull request is the delivery.
    delivered =
      prepared && saved?.onBranch && !run.failed && settings.workspace.pullRequest === "app" && !workspace?.ownPullRequest
        ? await deliverRound(services, data, prepared, issue ? titleForTask(issue) : "", Date.now() - run.durationMs, new Set(history.map((g) => g.id)), log)
        : "";
  } finally {
    // The token's last use was the push: nothing the agent left behind may act with it from here on.
    await services.github.revokeAgentToken(data.installationId, inputs.token);
  }
  const stop: unknown = signal?.reason;
  // Stopped by shutdown or a lost lock, the job runs this round again; a failure with attempts left
  // is retried. Anything else ends the round: recorded first, before the worker can die again.
  const interrupted = run.cancelled && !(stop instanceof StopRequest);
  const retried = run.failed && !run.cancelled && attempt < maxAttempts;
  if (!interrupted && !retried) await finishRound(services, ref, jobId, gate);
  const outcome = runOutcome(run);
  services.events.notify("agent.exited", { repo: data.repo, issue: data.issue, round, outcome, durationMs: run.durationMs });
  if (!interrupted)
    await services.rounds
      .recordRoundTiming(ref, roundTiming(round, run, outcome, gate, Date.now()))
      .catch((error: unknown) => log.warn({ err: error }, "could not record the round's timing"));
  if (run.cancelled && stop instanceof StopRequest) {
    await sendFeedback(services, target, { ops: awaitingOff, line: stoppedLine(round, stop.message, run, `${askLine}${saved?.line ?? ""}`) });
    return { round, run };
  }
  if (run.cancelled) return { round, run }; // shutdown or a lost lock: the worker puts the round back, or leaves it to its new holder
  if (run.failed && attempt < maxAttempts) {
    await sendFeedback(services, target, {
      line: endLine(round, run, secrets, ` · attempt ${attempt} of ${maxAttempts}; retrying with backoff${askLine}${saved?.line ?? ""}`),
    });
    throw new AgentError(`agent failed in round ${round} (attempt ${attempt} of ${maxAttempts})`);
  }
  // The round that took the answer is over: the label comes off, a moment later so that a question
  // the agent just asked (its webhook on the way) keeps it on; a failure asks a human next. On
  // success that is the round trip's second write; the line rides along with the next render.
  // Not when the agent asked again and that newer question was already answered: reconciliation
  // reads the label coming off after the newest question as that question's round having finished.
  const labelOff = gate && !run.failed && (await services.gates.lastGateId(ref)) === gate.id;
  await sendFeedback(services, target, {
    ops: labelOff ? awaitingOff : [],
    line: endLine(round, run, secrets, `${askLine}${saved?.line ?? ""}${delivered}`),
    // A status comment the issue has already is kept current; work that went elsewhere is always told.
    quiet: run.failed || saved?.notable || askLine ? false : "unless-shown",
    ...(labelOff ? { delayMs: services.config.statusDebounceMs } : {}),
  });
  if (run.failed) {
    await raiseRetryGate(
      services,
      target,
      "attempts_exhausted",
      `The agent failed ${maxAttempts} time(s) in round ${round}. Retry?`,
      failureDetails(run, secrets),
      round,
    );
  }
  return { round, run };
}
