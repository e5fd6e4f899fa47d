import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { Repo } from "./state.js";

const run = promisify(execFile);

/** Identity of the commits the simulator itself makes (a repository's first commit, a test's push). */
const SIM_AUTHOR = {
  GIT_AUTHOR_NAME: "Simulator",
  GIT_AUTHOR_EMAIL: "simulator@example.invalid",
  GIT_COMMITTER_NAME: "Simulator",
  GIT_COMMITTER_EMAIL: "simulator@example.invalid",
};

/**
 * Each simulated repository's bare git repository under one root (`<root>/<owner>/<name>.git`),
 * created when first needed with one commit on `main`: a README and the files the repository had
 * then (`setFile`), or the files a test seeds. Reads for tests: branch heads, a file at a ref, the log.
 */
export class GitRepos {
  private readonly creating = new Map<string, Promise<string>>();

  constructor(readonly root: string) {}

  /** Where the bare repository of `repo` lives, relative to the root: what `git http-backend` serves. */
  relativePath(repo: Repo): string {
    return `${repo.fullName}.git`;
  }

  /** The bare repository's directory, created on first use. */
  ensure(repo: Repo, files?: ReadonlyMap<string, string>): Promise<string> {
    const dir = join(this.root, this.relativePath(repo));
    let pending = this.creating.get(dir);
    if (!pending) {
      pending = existsSync(dir) ? Promise.resolve(dir) : this.create(dir, files ?? initialFiles(repo));
      this.creating.set(dir, pending);
      pending.catch(() => this.creating.delete(dir));
    }
    return pending;
  }

  /** Commits `files` on `branch` (created from `main` when missing) as another person pushing would. */
  async commit(repo: Repo, branch: string, files: Record<string, string>, message: string): Promise<string> {
    const bare = await this.ensure(repo);
    const work = await mkdtemp(join(tmpdir(), "sim-git-"));
    try {
      await git(["clone", "--quiet", bare, work]);
      const exists = (await git(["ls-remote", "--heads", bare, branch], work)).trim() !== "";
      await git(exists ? ["checkout", "--quiet", branch] : ["checkout", "--quiet", "-b", branch], work);
      await writeFiles(work, files);
      await git(["add", "-A"], work);
      await git(["commit", "--quiet", "-m", message], work);
      await git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`], work);
      return (await git(["rev-parse", "HEAD"], work)).trim();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Branch name → commit, for every branch. */
  async heads(repo: Repo): Promise<Record<string, string>> {
    const out = await git(["for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/"], await this.ensure(repo));
    return Object.fromEntries(
      out
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(" ") as [string, string]),
    );
  }

  /** A file's text at `ref`; undefined when it does not exist there. */
  async show(repo: Repo, ref: string, path: string): Promise<string | undefined> {
    try {
      return await git(["show", `${ref}:${path}`], await this.ensure(repo));
    } catch {
      return undefined;
    }
  }

  /** The commits reachable from `ref`, newest first. */
  async log(repo: Repo, ref: string): Promise<Array<{ sha: string; author: string; email: string; subject: string }>> {
    const out = await git(["log", "--format=%H%x00%an%x00%ae%x00%s", ref], await this.ensure(repo));
    return out
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [sha = "", author = "", email = "", subject = ""] = line.split("\0");
        return { sha, author, email, subject };
      });
  }

  private async create(dir: string, files: ReadonlyMap<string, string>): Promise<string> {
    const work = await mkdtemp(join(tmpdir(), "sim-git-"));
    try {
      await git(["init", "--quiet", "-b", "main"], work);
      await writeFiles(work, Object.fromEntries(files));
      await git(["add", "-A"], work);
      await git(["commit", "--quiet", "-m", "Initial commit"], work);
      await mkdir(dirname(dir), { recursive: true });
      await git(["clone", "--quiet", "--bare", work, dir]);
      // Pushes over smart HTTP are served whatever REMOTE_USER says; the simulator checks the token itself.
      await git(["config", "http.receivepack", "true"], dir);
      return dir;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

function initialFiles(repo: Repo): Map<string, string> {
  return new Map([["README.md", `# ${repo.name}\n`], ...repo.files]);
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await run("git", args, { cwd, env: { ...process.env, ...SIM_AUTHOR, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}
