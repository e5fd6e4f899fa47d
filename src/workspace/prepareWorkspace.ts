import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { WorkspaceError } from "../errors.js";
import { git } from "./git.js";
import { gitAuthEnv, tokenForms } from "./gitCredentials.js";
import { workspacePaths } from "./layout.js";
import { saveWork, type SaveWorkInput, type SavedWork } from "./saveWork.js";
import { readWorkspaceState, writeWorkspaceState } from "./workspaceState.js";

export interface PrepareInput {
  root: string;
  repo: string;
  issue: number;
  round: number;
  cloneUrl: string;
  /** The repository's default branch: where a new branch starts. */
  base: string;
  branch: string;
  token: string;
  identity: SaveWorkInput["identity"];
  limits: SaveWorkInput["limits"];
}

export interface PreparedWorkspace {
  /** The agent's working directory: the checkout, on `branch`. */
  checkout: string;
  taskFile: string;
  branch: string;
  base: string;
  /** Whether the branch did not exist yet and starts at the base. */
  newBranch: boolean;
  /** Work a crashed round left unpushed, pushed now. */
  resumed?: SavedWork;
  /** Where the previous round's work went because the branch had moved (the task says so). */
  divertedTo?: string;
  /** Commits and pushes what this round left (saveWork); a round branch it went to is remembered for the next task. */
  save(): Promise<SavedWork>;
}

/** One fetch into a repository's cache at a time in this process: concurrent fetches fight over ref locks. */
const cacheLocks = new Map<string, Promise<unknown>>();

/**
 * Prepares the issue's checkout for a round: pushes what an interrupted round left first, brings the
 * repository's object cache up to date (one fetch: only what changed), then puts the checkout on
 * the branch as origin has it (created from the base on first use), clean. `origin` is the clone
 * URL without credentials; the token reaches git only through the environment.
 */
export async function prepareWorkspace(input: PrepareInput): Promise<PreparedWorkspace> {
  const paths = workspacePaths(input.root, input.repo, input.issue);
  const secrets = tokenForms(input.token);
  const env = gitAuthEnv(input.cloneUrl, input.token);
  const cloned = existsSync(join(paths.checkout, ".git"));
  const previous = await readWorkspaceState(paths.stateFile);
  // The checkout's leftovers and the cache's fetch touch different repositories: both at once.
  const [resumed] = await Promise.all([
    cloned && previous ? resumeSave({ ...input, checkout: paths.checkout, branch: previous.branch, base: previous.base, round: previous.round }) : undefined,
    updateCache(paths.cache, input.cloneUrl, env, secrets),
  ]);
  // What was just pushed must reach the cache, or the checkout would be reset behind it.
  if (resumed?.pushedTo) await updateCache(paths.cache, input.cloneUrl, env, secrets);
  const divertedTo = resumed?.divertedTo ?? previous?.divertedTo;
  const cwd = paths.checkout;
  if (!cloned) {
    await mkdir(dirname(cwd), { recursive: true });
    // Objects are borrowed from the cache (alternates): a checkout costs its files, not the history.
    await git(["clone", "--quiet", "--shared", "--no-checkout", paths.cache, cwd]);
    // So the agent's own commits work without a git identity on the host; its environment may set another.
    await git(["config", "user.name", input.identity.name], { cwd });
    await git(["config", "user.email", input.identity.email], { cwd });
  } else {
    await git(["fetch", "--quiet", "--prune", paths.cache, "+refs/heads/*:refs/remotes/origin/*"], { cwd });
  }
  // Every round, whatever an agent set before: origin is the clone URL, without credentials.
  await git(["remote", "set-url", "origin", input.cloneUrl], { cwd });
  const remoteBranch = await git(["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${input.branch}`], { cwd }).catch(() => undefined);
  await git(["checkout", "--quiet", "--force", "-B", input.branch, remoteBranch ?? `refs/remotes/origin/${input.base}`], { cwd });
  await git(["clean", "-ffdxq"], { cwd });
  const state = { round: input.round, branch: input.branch, base: input.base };
  await writeWorkspaceState(paths.stateFile, state);
  return {
    checkout: cwd,
    taskFile: paths.taskFile,
    branch: input.branch,
    base: input.base,
    newBranch: remoteBranch === undefined,
    ...(resumed ? { resumed } : {}),
    ...(divertedTo ? { divertedTo } : {}),
    save: async () => {
      const saved = await saveWork({ ...input, checkout: cwd });
      if (saved.divertedTo) await writeWorkspaceState(paths.stateFile, { ...state, divertedTo: saved.divertedTo });
      return saved;
    },
  };
}

/** Pushes what an interrupted round left; work over a limit was already reported when its round ended, and is dropped. */
async function resumeSave(input: SaveWorkInput): Promise<SavedWork | undefined> {
  try {
    return await saveWork(input);
  } catch (error) {
    if (error instanceof WorkspaceError && error.reason === "limit") return undefined;
    throw error;
  }
}

/** Creates the repository's cache on first use and fetches every branch into it. */
async function updateCache(cache: string, cloneUrl: string, env: Record<string, string>, secrets: readonly string[]): Promise<void> {
  const before = cacheLocks.get(cache) ?? Promise.resolve();
  const update = before
    .catch(() => undefined)
    .then(async () => {
      if (!existsSync(join(cache, "HEAD"))) {
        await mkdir(cache, { recursive: true });
        await git(["init", "--quiet", "--bare", cache]);
        // Checkouts borrow its objects: nothing in it may ever be pruned.
        await git(["config", "gc.auto", "0"], { cwd: cache });
      }
      await git(["fetch", "--quiet", "--prune", "--no-tags", cloneUrl, "+refs/heads/*:refs/heads/*"], { cwd: cache, env, secrets });
    });
  cacheLocks.set(cache, update);
  try {
    await update;
  } finally {
    if (cacheLocks.get(cache) === update) cacheLocks.delete(cache);
  }
}
