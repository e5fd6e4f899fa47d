import { join } from "node:path";
import { WorkspaceError } from "../errors.js";

/** Where one issue's workspace and its repository's object cache live under WORKSPACE_ROOT. */
export interface WorkspacePaths {
  /** A bare mirror of the repository's branches: the objects every issue's checkout shares. */
  cache: string;
  /** The issue's directory, kept until its work is pushed: the checkout, the task, the state. */
  issueDir: string;
  checkout: string;
  /** Outside the checkout, so the task is never committed. */
  taskFile: string;
  stateFile: string;
}

/** GitHub's owner and repository names; anything else (`..`, a slash) could leave the root. */
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function workspacePaths(root: string, repo: string, issue: number): WorkspacePaths {
  const [owner = "", name = ""] = repo.toLowerCase().split("/");
  if (!NAME.test(owner) || !NAME.test(name) || /^\.+$/.test(owner) || /^\.+$/.test(name)) {
    throw new WorkspaceError(`Not a repository name the workspace can use: ${JSON.stringify(repo)}.`, "failed");
  }
  const issueDir = join(root, "issues", owner, name, String(issue));
  return {
    cache: join(root, "cache", owner, `${name}.git`),
    issueDir,
    checkout: join(issueDir, "checkout"),
    taskFile: join(issueDir, "task.md"),
    stateFile: join(issueDir, "state.json"),
  };
}
