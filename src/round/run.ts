import { rm } from "node:fs/promises";
import { postAskFile } from "./postAskFile.js";
import { runAgent, type AgentRun } from "../agent/runAgent.js";
import { SandboxError } from "../errors.js";
import { titleForTask } from "../gates/issueTitle.js";
import type { RoundSandbox } from "../sandbox/round.js";
import { sendFeedback } from "../status/feedback.js";
import { deliverRound, saveRoundWork } from "./checkout.js";
import type { PreparedRound, RanRound } from "./context.js";
import { startLine } from "./lines.js";
import { acknowledgeStart, finishRound } from "./once.js";
import type { Skipped } from "./outcome.js";

/**
 * The round's third step: the agent runs in its sandbox until it exits (or is stopped), its ask file
 * is posted, what it left in the checkout is pushed and, when it finished without asking, delivered
 * as the issue's pull request. However that ends, the round's channel is closed and its tokens are
 * revoked last: nothing the agent left behind may act with them afterwards. A sandbox that cannot
 * start ends the round unrun.
 */
export async function runAgentRound(prepared: PreparedRound): Promise<RanRound | Skipped> {
  const { services, data, settings, workspace, issue, history, log } = prepared;
  const attempt = prepared.job.attemptsMade + 1;
  try {
    const started = await startAgent(prepared, attempt);
    if ("skipped" in started) return started;
    const { run, askLine } = started;
    log.info({ exitCode: run.exitCode, signal: run.signal, ms: run.durationMs }, "agent exited");
    const checkout = workspace?.prepared;
    // Whatever the agent left is pushed before the round is recorded as ended, however it ended.
    const saved = checkout ? await saveRoundWork(checkout, log) : undefined;
    // A pull request's own conversation works on its head branch: that pull request is the delivery.
    const delivered =
      checkout && saved?.onBranch && !run.failed && settings.workspace.pullRequest === "app" && !workspace.ownPullRequest
        ? await deliverRound(services, data, checkout, titleForTask(issue), Date.now() - run.durationMs, new Set(history.map((g) => g.id)), log)
        : "";
    return { ...prepared, run, attempt, askLine, saved, delivered };
  } finally {
    // Their last use was the push: the channel closes first, so no push of the agent's can start after.
    services.channel.grants.close(prepared.inputs.credential);
    await Promise.all(prepared.inputs.tokens.map((token) => services.github.revokeAgentToken(data.installationId, token)));
  }
}

/** Runs the agent in the round's sandbox and posts its ask file; the sandbox, the recipe's files and a fresh workdir are cleaned up after. */
async function startAgent(prepared: PreparedRound, attempt: number): Promise<{ run: AgentRun; askLine: string } | Skipped> {
  const { services, data, job, round, gate, log, target } = prepared;
  const { task, workdir, taskFile, askFile, recipe, argv, env, grant } = prepared.inputs;
  // Started more often than it failed: an earlier start of this attempt never ended (a runner lost, a shutdown).
  const again = job.attemptsStarted > attempt;
  let sandbox: RoundSandbox | undefined;
  try {
    sandbox = await services.sandbox.forRound({ workdir, taskFile, recipeDir: recipe?.dir });
    const run = await runAgent({
      argv,
      cwd: workdir,
      env: sandbox ? sandbox.env(env) : env,
      sandbox,
      input: task,
      timeoutMs: services.config.agent.timeoutSeconds * 1000,
      killGraceMs: services.config.agent.killGraceSeconds * 1000,
      signal: prepared.signal,
      onStart: async (pid) => {
        const startedAt = Date.now();
        log.info({ pid, attempt, replyToSpawnMs: startedAt - data.receivedAt }, "agent started");
        services.events.notify("agent.started", { repo: data.repo, issue: data.issue, round, replyToSpawnMs: startedAt - data.receivedAt, resumedGate: gate });
        // Acknowledgements only: failing to queue them (Redis blinked) must not stop a round that started.
        await sendFeedback(services, target, {
          ops: await acknowledgeStart(services, data, gate),
          line: startLine(round, data, gate, attempt, services.config.role === "runner" ? services.config.runnerName : undefined, again),
          // One line per start: a start taken up after a runner died is shown too.
          key: `start-${job.id}-${job.attemptsStarted}`,
          quiet: true,
        }).catch((error: unknown) => log.warn({ err: error }, "could not queue the start acknowledgements"));
      },
    });
    // Posted however the agent exited, and before the save: the file is never committed.
    const askLine = await postAskFile(services, { path: askFile, grant });
    return { run, askLine };
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    // Not retried: the host must be fixed first (README, "The sandbox"); the agent never runs unsandboxed.
    log.error({ err: error }, "the agent sandbox did not start; the round ends without running the agent");
    await finishRound(services, prepared.ref, job.id, gate);
    await sendFeedback(services, target, {
      ops: prepared.awaitingOff,
      line: `round ${round}: not started: ${error.message} Then comment \`/retry\`.`,
      key: `sandbox-${job.id}`,
    });
    return { skipped: "sandbox did not start", round };
  } finally {
    sandbox?.release();
    await recipe?.dispose();
    if (!prepared.workspace && !services.config.agent.keepWorkdir) await rm(workdir, { recursive: true, force: true });
  }
}
