import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Job } from "bullmq";
import { chooseAgentCommand } from "../agent/agentCommand.js";
import { agentEnv } from "../agent/agentEnv.js";
import { ASK_FILE, clearAskFile } from "../agent/askFile.js";
import { postAskFile } from "../agent/postAskFile.js";
import { maskSecrets } from "../agent/maskSecrets.js";
import { cachedTemplate, renderTask } from "../agent/renderTask.js";
import { setUpRecipe } from "../agent/recipes/setUpRecipe.js";
import { runAgent, type AgentRun } from "../agent/runAgent.js";
import type { Gate, RoundTiming } from "../domain.js";
import type { RoundSandbox } from "../sandbox/round.js";
import { StopRequest } from "../agent/runningAgents.js";
import type { RepoSettings } from "../config/repoConfig.js";
import { fillPlaceholders } from "../config/splitCommand.js";
import { AgentError, SandboxError, WorkspaceError } from "../errors.js";
import { sendFeedback, type IssueTarget } from "../status/feedback.js";
import { choseRetry, isLadderGate, raiseLadderGate } from "../gates/ladders.js";
import { formatDuration } from "../protocol/duration.js";
import { SpawnJobSchema, type FeedbackOp, type SpawnJob } from "./payloads.js";
import type { Services } from "../services.js";
import { excludePaths } from "../workspace/excludePaths.js";
import { tokenForms } from "../workspace/gitCredentials.js";
import type { PreparedWorkspace } from "../workspace/prepareWorkspace.js";
import { askedSince, deliverPullRequest, deliveryLine } from "../workspace/pullRequest.js";
import { openRoundWorkspace, savedLine, type RoundWorkspace } from "../workspace/roundWorkspace.js";
import { bodyForTask } from "../gates/issueBody.js";
import { titleForTask } from "../gates/issueTitle.js";
import { alreadyRan, finishRound, issueFromGitHub, overtaken, redisSettled, type SpawnContext } from "./roundGuards.js";
import { agentLogin } from "../github/agentLogins.js";

export type { SpawnContext } from "./roundGuards.js";

export interface SpawnOutcome {
  skipped?: string;
  round?: number;
  run?: AgentRun;
}

/**
 * Runs one agent round: claims the answered gate (once), renders the task with the whole history,
 * starts the agent with a fresh narrowed token, and reports start and end on the status comment.
 * 🚀 on a dispatching command is queued only once the process has actually started; a resumed
 * round takes the awaiting label off when it ends (README, "GitHub's limits").
 * A failing agent is retried by BullMQ up to the attempt limit, then a human is asked.
 */
export async function processSpawn(services: Services, job: Job, signal?: AbortSignal, context: SpawnContext = {}): Promise<SpawnOutcome> {
  const data: SpawnJob = SpawnJobSchema.parse(job.data);
  const ref = { repo: data.repo, issue: data.issue };
  const target = { installationId: data.installationId, repo: data.repo, issue: data.issue };
  const jobId = job.id ?? "unknown";
  // Everything before the fork is a handful of round trips: each await here delays the agent.
  const [ran, { settings }, gate] = await Promise.all([
    alreadyRan(services, job, data, jobId),
    services.settings(data.installationId, data.repo),
    data.trigger.type === "resume" ? services.gates.getGate(data.trigger.gateId) : undefined,
  ]);
  if (ran) return { skipped: ran };
  if (data.trigger.type === "resume" && !gate) return { skipped: "gate missing" };
  // The server's command, or the server's profile the repository names; never the repository's own.
  const choice = chooseAgentCommand(services.config.agent, settings.agentProfile);
  const ladder = gate && isLadderGate(gate) ? { retry: choseRetry(gate), kind: gate.ask.kind } : undefined;
  const start = await services.rounds.beginRound(ref, jobId, {
    claimGate: gate?.id,
    // A resume runs a round after the one that asked, even if Redis lost the issue's round counter.
    allocate: ladder?.retry === false || "problem" in choice ? undefined : { maxRounds: settings.maxRounds, lowest: gate ? gate.round + 1 : 0 },
    raiseLimitBy: ladder?.retry && ladder.kind === "rounds_exhausted" ? settings.maxRounds : 0,
  });
  if (start.claim !== "claimed") return { skipped: `gate ${start.claim}` };
  if (gate && ladder?.retry === false) {
    await services.gates.finishResume(gate, Date.now());
    await sendFeedback(
      services,
      target,
      [{ type: "removeLabel", label: settings.labels.awaiting }],
      `@${gate.answeredBy ?? "someone"} chose not to retry; the agent is not re-run`,
    );
    return { skipped: "human gave up" };
  }
  // An answer or dispatch still queued when the issue was closed must not start an agent on it.
  if (start.closed) {
    await sendFeedback(
      services,
      target,
      gate ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [],
      "the issue is closed: the queued round was not started",
    );
    return { skipped: "issue closed" };
  }
  if ("problem" in choice) {
    await sendFeedback(
      services,
      target,
      choice.comment ? [{ type: "comment", body: choice.comment }] : [],
      `could not start the agent: ${choice.problem}`,
      `no-command-${jobId}`,
    );
    return { skipped: choice.skipped };
  }
  const command = choice.argv;
  const { round, currentRound: current } = start;
  if (round === undefined) {
    await raiseLadderGate(
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
    const ops: FeedbackOp[] = [
      { type: "comment", body: workspace.comment },
      ...(gate ? [{ type: "removeLabel" as const, label: settings.labels.awaiting }] : []),
    ];
    await sendFeedback(services, target, ops, `round ${round}: not started: the checkout needs the permission Contents: write`, `workspace-refused-${jobId}`);
    return { skipped: "workspace refused", round };
  }
  const prepared = workspace?.prepared;
  const task = renderTask(template, {
    repo: data.repo,
    round,
    issue: { number: data.issue, title: titleForTask(issue), url: issue.url, author: issue.author, ...bodyForTask(issue) },
    gates: history,
    notes,
    ...(prepared
      ? { workspace: { branch: prepared.branch, base: prepared.base, divertedTo: prepared.divertedTo, pullRequest: settings.workspace.pullRequest } }
      : {}),
    askHuman: choice.recipe?.askHuman,
  });
  const token = workspace?.token ?? (await services.github.agentToken(data.installationId, data.repo)).token;
  const secrets = tokenForms(token);
  // With the workspace the agent works in the issue's checkout, kept across rounds; else in a fresh directory.
  const workdir = prepared?.checkout ?? (await mkdtemp(join(services.config.agent.workdirRoot, "escalation-")));
  const taskFile = prepared?.taskFile ?? join(workdir, "task.md");
  await writeFile(taskFile, task, "utf8");
  // One left by an earlier attempt was posted already, or belongs to a run that was cut short.
  const askFile = join(workdir, ASK_FILE);
  await clearAskFile(askFile);
  // Files a tool keeps in the checkout for itself (aider's .aider*) are never committed.
  if (prepared && choice.recipe?.exclude) await excludePaths(prepared.checkout, choice.recipe.exclude);
  // A recipe's config files (its MCP server) are written for the round, outside the checkout.
  const recipe = choice.recipe ? await setUpRecipe(choice.recipe, services.config.agent.workdirRoot, services.sandbox.escalate) : undefined;
  const argv = fillPlaceholders(command, { taskFile, repo: data.repo, issue: String(data.issue), round: String(round), workdir, ...recipe?.placeholders });
  const env = agentEnv(
    {
      token,
      apiUrl: services.config.baseUrl,
      serverUrl: services.config.serverUrl,
      repo: data.repo,
      issue: data.issue,
      round,
      taskFile,
      askFile,
      ...(workspace ? { workspace: { branch: workspace.prepared.branch, base: workspace.prepared.base, gitAuth: workspace.gitAuth } } : {}),
    },
    services.config.agent.envPassthrough,
    undefined,
    recipe?.env,
  );
  const attempt = job.attemptsMade + 1;
  const maxAttempts = job.opts.attempts ?? 1;
  let run: AgentRun;
  let askLine: string;
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
        services.events.notify("agent.started", { repo: data.repo, issue: data.issue, round, replyToSpawnMs: startedAt - data.receivedAt, resumedGate: gate });
        // Acknowledgements only: failing to queue them (Redis blinked) must not stop a round that started.
        await sendFeedback(services, target, startAcknowledgements(data, gate), startLine(round, data, gate, attempt), `start-${jobId}-${attempt}`, {
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
    await sendFeedback(
      services,
      target,
      gate ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [],
      `round ${round}: not started: ${error.message} Then comment \`/retry\`.`,
      `sandbox-${jobId}`,
    );
    return { skipped: "sandbox did not start", round };
  } finally {
    sandbox?.release();
    await recipe?.dispose();
    if (!prepared && !services.config.agent.keepWorkdir) await rm(workdir, { recursive: true, force: true });
  }
  log.info({ exitCode: run.exitCode, signal: run.signal, ms: run.durationMs }, "agent exited");
  // Whatever the agent left is pushed before the round is recorded as ended, however it ended.
  const saved = prepared ? await saveRoundWork(prepared, log) : undefined;
  // A pull request's own conversation works on its head branch: that pull request is the delivery.
  const delivered =
    prepared && saved?.onBranch && !run.failed && settings.workspace.pullRequest === "app" && !workspace?.ownPullRequest
      ? await deliverRound(services, data, prepared, issue ? titleForTask(issue) : "", Date.now() - run.durationMs, new Set(history.map((g) => g.id)), log)
      : "";
  const stop: unknown = signal?.reason;
  // Stopped by shutdown or a lost lock, the job runs this round again; a failure with attempts left
  // is retried. Anything else ends the round: recorded first, before the worker can die again.
  const interrupted = run.cancelled && !(stop instanceof StopRequest);
  const retried = run.failed && !run.cancelled && attempt < maxAttempts;
  if (!interrupted && !retried) await finishRound(services, ref, jobId, gate);
  const outcome = !run.failed ? "success" : run.timedOut ? "timeout" : run.cancelled ? "stopped" : "failure";
  services.events.notify("agent.exited", { repo: data.repo, issue: data.issue, round, outcome, durationMs: run.durationMs });
  if (!interrupted)
    await recordTiming(services, ref, round, run, outcome, gate).catch((error: unknown) => log.warn({ err: error }, "could not record the round's timing"));
  if (run.cancelled && stop instanceof StopRequest) {
    await sendFeedback(
      services,
      target,
      gate ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [],
      `round ${round}: agent ${stop.message} (after ${formatDuration(run.durationMs / 1000)})${askLine}${saved?.line ?? ""}`,
    );
    return { round, run };
  }
  if (run.cancelled) return { round, run }; // shutdown: the worker rethrows so BullMQ retries the round
  if (run.failed && attempt < maxAttempts) {
    await sendFeedback(
      services,
      target,
      [],
      endLine(round, run, secrets, ` · attempt ${attempt} of ${maxAttempts}; retrying with backoff${askLine}${saved?.line ?? ""}`),
    );
    throw new AgentError(`agent failed in round ${round} (attempt ${attempt} of ${maxAttempts})`);
  }
  // The round that took the answer is over: the label comes off, a moment later so that a question
  // the agent just asked (its webhook on the way) keeps it on; a failure asks a human next. On
  // success that is the round trip's second write; the line rides along with the next render.
  // Not when the agent asked again and that newer question was already answered: reconciliation
  // reads the label coming off after the newest question as that question's round having finished.
  const labelOff = gate && !run.failed && (await services.gates.lastGate(ref))?.id === gate.id;
  await sendFeedback(
    services,
    target,
    labelOff ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [],
    endLine(round, run, secrets, `${askLine}${saved?.line ?? ""}${delivered}`),
    undefined,
    {
      // A status comment the issue has already is kept current; work that went elsewhere is always told.
      quiet: run.failed || saved?.notable || askLine ? false : "unless-shown",
      ...(labelOff ? { delayMs: services.config.statusDebounceMs } : {}),
    },
  );
  if (run.failed) {
    const tail = run.tail.map((line) => maskSecrets(line, secrets)).join("\n");
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

/** The workspace's checkout for the round, or why it cannot have one. */
async function openWorkspace(
  services: Services,
  data: SpawnJob,
  round: number,
  settings: RepoSettings["workspace"],
  target: IssueTarget,
): Promise<RoundWorkspace> {
  try {
    return await openRoundWorkspace(services, {
      installationId: data.installationId,
      repo: data.repo,
      issue: data.issue,
      round,
      branchTemplate: settings.branch,
      pullRequest: settings.pullRequest,
    });
  } catch (error) {
    // Retried like an agent that could not start; the issue says why meanwhile.
    await sendFeedback(services, target, [], `round ${round}: could not prepare the checkout: ${(error as Error).message}`);
    throw new AgentError(`could not prepare the checkout for round ${round}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Commits and pushes what the round left. A push that still fails after its retries, or work over a
 * limit, is told on the status line and does not fail the round: the checkout stays on disk, and the
 * next preparation pushes it (work over a limit is dropped then, as the line said).
 */
async function saveRoundWork(prepared: PreparedWorkspace, log: Services["log"]): Promise<{ line: string; notable: boolean; onBranch: boolean }> {
  try {
    const saved = await prepared.save();
    return { line: savedLine(saved), notable: saved.divertedTo !== undefined, onBranch: saved.divertedTo === undefined };
  } catch (error) {
    log.warn({ err: error }, "could not save the round's work");
    const next = error instanceof WorkspaceError && error.reason === "limit" ? "" : " It stays on this host and is pushed before the next round.";
    return { line: ` · the work could not be pushed: ${(error as Error).message}${next}`, notable: true, onBranch: false };
  }
}

/**
 * A round that finished without asking delivers the branch as the issue's pull request (opened
 * once, found again later). A failure is told on the status line; the round stays finished.
 */
async function deliverRound(
  services: Services,
  data: SpawnJob,
  prepared: PreparedWorkspace,
  title: string,
  startedAt: number,
  known: ReadonlySet<string>,
  log: Services["log"],
): Promise<string> {
  try {
    const [octokit, { botLogin }] = await Promise.all([services.github.installation(data.installationId), services.github.identity()]);
    const isAgent = agentLogin(botLogin, services.config.agentLogins);
    if (await askedSince(octokit, data.repo, data.issue, startedAt, known, isAgent)) return "";
    const delivery = await deliverPullRequest({
      octokit,
      repo: data.repo,
      issue: data.issue,
      issueTitle: title,
      branch: prepared.branch,
      base: prepared.base,
      checkout: prepared.checkout,
    });
    return deliveryLine(delivery);
  } catch (error) {
    log.warn({ err: error }, "could not deliver the pull request");
    return ` · ${(error as Error).message}`;
  }
}

/** The round's two clocks for the status comment: the human wait of the gate it resumed, and the agent's run. */
function recordTiming(
  services: Pick<Services, "rounds">,
  ref: { repo: string; issue: number },
  round: number,
  run: AgentRun,
  outcome: RoundTiming["outcome"],
  gate: Gate | undefined,
): Promise<void> {
  const answered = gate?.answeredAt;
  return services.rounds.recordRoundTiming(ref, {
    round,
    startedAt: Date.now() - run.durationMs,
    runMs: run.durationMs,
    outcome,
    ...(gate ? { gate: gate.id, ...(answered !== undefined ? { waitMs: Math.max(0, answered - gate.askedAt), answeredBy: gate.answeredBy } : {}) } : {}),
  });
}

/**
 * 🚀 on the `/agent` or `/retry` comment that dispatched the round. A resume writes nothing at its
 * start: the awaiting label comes off when the round ends (see README, "GitHub's limits").
 */
function startAcknowledgements(data: SpawnJob, gate: Gate | undefined): FeedbackOp[] {
  const commentId = !gate && data.trigger.type === "dispatch" ? data.trigger.commentId : undefined;
  return commentId ? [{ type: "react", commentId, content: "rocket" }] : [];
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
  const tail =
    run.tail.length > 0 ? `\n\n  \`\`\`text\n${run.tail.map((l) => `  ${maskSecrets(l, secrets).replace(/```/g, "ʼʼʼ")}`).join("\n")}\n  \`\`\`` : "";
  return `round ${round}: agent ${why} after ${took}${suffix}${tail}`;
}
