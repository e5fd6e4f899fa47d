import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { WorkspaceError } from "../errors.js";
import { git, GitFailure } from "./git.js";
import { gitAuthEnv, tokenForms } from "./gitCredentials.js";

/** Who the app's commits are by: the App's bot account. */
export interface CommitIdentity {
  name: string;
  email: string;
}

export interface SaveWorkInput {
  checkout: string;
  cloneUrl: string;
  token: string;
  branch: string;
  /** The branch a new `branch` starts from: a head still on it has nothing to push. */
  base: string;
  round: number;
  identity: CommitIdentity;
  limits: { maxBytes: number; maxFiles: number };
  /** Waits between push attempts; the last failure is thrown. Tests shorten them. */
  retryDelaysMs?: readonly number[];
}

export interface SavedWork {
  /** Whether uncommitted changes were committed as "work in progress, round N". */
  committed: boolean;
  /** The branch the work is on now; undefined when there was nothing to push. */
  pushedTo: string | undefined;
  /** Set when someone else moved the branch meanwhile: the round branch the work went to instead. */
  divertedTo: string | undefined;
  head: string;
}

const RETRY_DELAYS_MS = [1_000, 3_000, 9_000];

/**
 * Whatever the agent left is committed (its own commits kept) and pushed to the branch; when the
 * branch moved meanwhile (a human pushed), to `<branch>-round-<round>` instead. A failing push is
 * retried with backoff, then thrown: the checkout stays on disk and the next preparation pushes it.
 */
export async function saveWork(input: SaveWorkInput): Promise<SavedWork> {
  const cwd = input.checkout;
  const secrets = tokenForms(input.token);
  const committed = await commitLeftovers(input);
  const head = await git(["rev-parse", "HEAD"], { cwd });
  const pushed = await git(["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${input.branch}`], { cwd }).catch(() => undefined);
  if (pushed === head || (pushed === undefined && (await onBase(cwd, head, input.base))))
    return { committed, pushedTo: undefined, divertedTo: undefined, head };
  // The work goes to the repository whatever the agent did to origin (and only there is the token sent).
  await git(["remote", "set-url", "origin", input.cloneUrl], { cwd });
  const env = gitAuthEnv(input.cloneUrl, input.token);
  const push = (ref: string, force = false) =>
    withRetries(
      () => git(["push", "--porcelain", ...(force ? ["--force"] : []), "origin", `HEAD:refs/heads/${ref}`], { cwd, env, secrets }),
      input.retryDelaysMs ?? RETRY_DELAYS_MS,
    );
  try {
    await push(input.branch);
    return { committed, pushedTo: input.branch, divertedTo: undefined, head };
  } catch (error) {
    if (!(error instanceof GitFailure && isNonFastForward(error))) throw error;
  }
  // The round branch is this round's alone: an earlier attempt of the same round may be overwritten.
  const roundBranch = `${input.branch}-round-${input.round}`;
  await push(roundBranch, true);
  return { committed, pushedTo: roundBranch, divertedTo: roundBranch, head };
}

/** Whether `head` is already on the base as origin has it: a new branch without work is not pushed. */
async function onBase(cwd: string, head: string, base: string): Promise<boolean> {
  return git(["merge-base", "--is-ancestor", head, `refs/remotes/origin/${base}`], { cwd }).then(
    () => true,
    () => false,
  );
}

/** Commits everything uncommitted, within the limits; false when there was nothing. */
async function commitLeftovers(input: SaveWorkInput): Promise<boolean> {
  const cwd = input.checkout;
  const status = await git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], { cwd });
  const paths = status
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
  if (paths.length === 0) return false;
  await checkLimits(cwd, paths, input.limits);
  const { name, email } = input.identity;
  const identity = { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
  await git(["add", "-A"], { cwd });
  await git(["-c", "commit.gpgSign=false", "commit", "--quiet", "--no-verify", "-m", `work in progress, round ${input.round}`], { cwd, env: identity });
  return true;
}

async function checkLimits(cwd: string, paths: readonly string[], limits: SaveWorkInput["limits"]): Promise<void> {
  if (paths.length > limits.maxFiles) {
    throw new WorkspaceError(
      `The round left ${paths.length} changed files, over WORKSPACE_MAX_FILES (${limits.maxFiles}); they were not committed. Raise WORKSPACE_MAX_FILES or have the agent ignore generated files (.gitignore).`,
      "limit",
    );
  }
  let bytes = 0;
  for (const path of paths)
    bytes += await lstat(join(cwd, path)).then(
      (s) => s.size,
      () => 0,
    );
  if (bytes > limits.maxBytes) {
    throw new WorkspaceError(
      `The round left ${bytes} bytes of changed files, over WORKSPACE_MAX_BYTES (${limits.maxBytes}); they were not committed. Raise WORKSPACE_MAX_BYTES or have the agent ignore generated files (.gitignore).`,
      "limit",
    );
  }
}

/** `git push --porcelain` marks a ref refused because the remote moved with "[rejected]" (fetch first / non-fast-forward). */
function isNonFastForward(error: GitFailure): boolean {
  return /\[rejected\]|non-fast-forward|fetch first/i.test(`${error.stderr}\n${error.message}`);
}

async function withRetries<T>(attempt: () => Promise<T>, delaysMs: readonly number[]): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      // A refusal (no permission) or a moved branch does not heal by waiting.
      const final = !(error instanceof GitFailure) || error.reason === "refused" || isNonFastForward(error) || i >= delaysMs.length;
      if (final) throw error;
      await new Promise((resolve) => setTimeout(resolve, delaysMs[i]));
    }
  }
}
