import { mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CommandChoice } from "../agent/agentCommand.js";
import { agentEnv } from "../agent/agentEnv.js";
import { ASK_FILE, clearAskFile } from "../agent/askFile.js";
import { setUpRecipe, type RecipeRound } from "../agent/recipes/setUpRecipe.js";
import { renderTask } from "../agent/renderTask.js";
import type { PullRequestMode } from "../config/repoConfig.js";
import { fillPlaceholders } from "../config/splitCommand.js";
import type { BodyEdit, Gate, HumanNote, TitleEdit } from "../domain.js";
import { bodyForTask } from "../gates/issueBody.js";
import { titleForTask } from "../gates/issueTitle.js";
import type { Services } from "../services/services.js";
import { excludePaths } from "../workspace/excludePaths.js";
import { agentGitEnv, tokenForms } from "../workspace/gitCredentials.js";
import { channelGitUrl } from "../channel/channelPaths.js";
import type { RoundGrant } from "../channel/roundGrants.js";
import type { RoundWorkspace } from "./workspace.js";
import type { SpawnJob } from "../payloads.js";

/**
 * Everything a round's agent starts with, written before it starts: the task rendered from the issue,
 * its gates and notes; the directory it works in, with the task file and no stale ask file; a recipe's
 * config files; its command line and its environment (the agent contract, README).
 */

export interface RoundInputs {
  task: string;
  /** The round's tokens (the agent's, and the app's for the checkout): revoked when the round ends. */
  tokens: string[];
  /** The round's channel credential: closed when the round ends. */
  credential: string;
  /** What the agent may have the app do (src/channel/): asks and comments on its issue, pushes to its branch. */
  grant: RoundGrant;
  /** The round's tokens and credential in every form they may show up in, masked in what the round writes. */
  secrets: string[];
  /** The issue's checkout (kept across rounds), else a fresh directory the caller removes after the run. */
  workdir: string;
  taskFile: string;
  askFile: string;
  /** A recipe's config files for this round; the caller disposes of them after the run. */
  recipe?: RecipeRound;
  argv: string[];
  env: Record<string, string>;
}

/** What the preparation reads: the agent's settings, its token when there is no checkout's, where the sandbox shows `escalate`, the round channel. */
export interface RoundInputPorts {
  config: Pick<Services["config"], "baseUrl" | "serverUrl"> & { agent: Pick<Services["config"]["agent"], "workdirRoot" | "envPassthrough"> };
  github: Pick<Services["github"], "agentToken">;
  sandbox: Pick<Services["sandbox"], "escalate">;
  channel: Services["channel"];
}

export interface RoundPlan {
  data: SpawnJob;
  round: number;
  issue: { title: string; titleEdit?: TitleEdit; body: string; bodyEdit?: BodyEdit; url: string; author?: string };
  /** Every gate of the issue, the one this round resumes included. */
  history: readonly Gate[];
  notes: readonly HumanNote[];
  template: string;
  command: Exclude<CommandChoice, { problem: string }>;
  workspace: Extract<RoundWorkspace, { kind: "ready" }> | undefined;
  pullRequest: PullRequestMode;
}

/** Writes the round's files and builds its command line and environment; starts nothing. */
export async function prepareRoundInputs(services: RoundInputPorts, plan: RoundPlan): Promise<RoundInputs> {
  const { data, round, issue, command, workspace } = plan;
  const prepared = workspace?.prepared;
  const task = renderTask(plan.template, {
    repo: data.repo,
    round,
    issue: { number: data.issue, title: titleForTask(issue), url: issue.url, author: issue.author, ...bodyForTask(issue) },
    gates: plan.history,
    notes: plan.notes,
    ...(prepared ? { workspace: { branch: prepared.branch, base: prepared.base, divertedTo: prepared.divertedTo, pullRequest: plan.pullRequest } } : {}),
    askHuman: command.recipe?.askHuman,
  });
  const token = workspace?.agentToken ?? (await services.github.agentToken(data.installationId, data.repo)).token;
  const tokens = workspace ? [token, workspace.token] : [token];
  const grant: RoundGrant = {
    installationId: data.installationId,
    repo: data.repo,
    issue: data.issue,
    round,
    ...(prepared ? { push: { branch: prepared.branch, cloneUrl: workspace.cloneUrl, token: workspace.token } } : {}),
  };
  // With the workspace the agent works in the issue's checkout, kept across rounds; else in a fresh directory.
  const workdir = prepared?.checkout ?? (await mkdtemp(join(services.config.agent.workdirRoot, "escalation-")));
  const taskFile = prepared?.taskFile ?? join(workdir, "task.md");
  await writeFile(taskFile, task, "utf8");
  // One left by an earlier attempt was posted already, or belongs to a run that was cut short.
  const askFile = join(workdir, ASK_FILE);
  await clearAskFile(askFile);
  // Files a tool keeps in the checkout for itself (aider's .aider*) are never committed.
  if (prepared && command.recipe?.exclude) await excludePaths(prepared.checkout, command.recipe.exclude);
  // A recipe's config files (its MCP server) are written for the round, outside the checkout.
  const recipe = command.recipe ? await setUpRecipe(command.recipe, services.config.agent.workdirRoot, services.sandbox.escalate) : undefined;
  // Issued last, after everything that can fail: the round's end closes it (src/round/run.ts).
  const credential = services.channel.grants.issue(grant);
  const secrets = [...tokens.flatMap(tokenForms), credential];
  const argv = fillPlaceholders(command.argv, { taskFile, repo: data.repo, issue: String(data.issue), round: String(round), workdir, ...recipe?.placeholders });
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
      channel: { url: services.channel.url, token: credential },
      ...(workspace
        ? {
            workspace: {
              branch: workspace.prepared.branch,
              base: workspace.prepared.base,
              gitAuth: agentGitEnv(workspace.cloneUrl, token, { url: channelGitUrl(services.channel.url, data.repo), credential }),
            },
          }
        : {}),
    },
    services.config.agent.envPassthrough,
    undefined,
    recipe?.env,
  );
  return { task, tokens, credential, grant, secrets, workdir, taskFile, askFile, recipe, argv, env };
}
