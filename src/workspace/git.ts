import { execa } from "execa";
import { maskSecrets } from "../agent/maskSecrets.js";
import { WorkspaceError } from "../errors.js";

export interface GitOptions {
  cwd?: string;
  /** Added to git's environment: credentials (gitCredentials.ts), the committer's identity. */
  env?: Record<string, string>;
  /** Masked in an error's message. */
  secrets?: readonly string[];
}

/** What a failed git command said; `stderr` is masked. */
export class GitFailure extends WorkspaceError {
  override name = "GitFailure";
  constructor(
    message: string,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(message, /\b(401|403|404)\b|Authentication failed|could not read Username|denied|Repository not found/i.test(stderr) ? "refused" : "failed", options);
  }
}

/**
 * What the agent may have written into the checkout's `.git/config` never runs in the app's git:
 * no hook, no file-system monitor, no credential helper (which would also see the token).
 */
const DISARMED = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "credential.helper="];

/**
 * Runs git without a shell and without the host's global or system configuration (no credential
 * helper may store the token, no hook or alias runs), never prompting.
 */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await execa("git", [...DISARMED, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/",
      LANG: "C",
      GIT_TERMINAL_PROMPT: "0",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...options.env,
    },
    extendEnv: false,
    reject: false,
    stripFinalNewline: true,
  });
  if (result.exitCode === 0) return result.stdout;
  if ((result as { code?: string }).code === "ENOENT") {
    throw new WorkspaceError("git is not installed on the app's host (it is not on the PATH): install git, or set AGENT_WORKSPACE=off.", "failed", {
      cause: result,
    });
  }
  // `git push --porcelain` reports a refused ref on stdout.
  const stderr = maskSecrets(`${String(result.stdout ?? "")}\n${String(result.stderr ?? "")}`, options.secrets ?? []).trim();
  const command = args.find((arg, i) => !arg.startsWith("-") && args[i - 1] !== "-c") ?? "";
  throw new GitFailure(`git ${command} failed: ${stderr.split("\n").slice(-3).join(" ") || `exit ${result.exitCode}`}`, stderr, { cause: result.exitCode });
}
