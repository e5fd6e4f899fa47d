import { execFile, type ExecFileException } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";

/** The real launcher, as agents and operators run it (it imports dist/: call ensureBuilt() first). */
export const ESCALATE_BIN = join(projectRoot, "bin", "escalate");

/** A PATH that finds node and little else. */
export const NODE_PATH = [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter);

export interface EscalateRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs bin/escalate with only `env` (plus a PATH that finds node): nothing of the test's environment
 * leaks in. `uid` runs it as another user (the tests must run as root for that); `input` is its
 * standard input, which is closed either way.
 */
export function runEscalate(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string; uid?: number; input?: string } = {},
): Promise<EscalateRun> {
  return new Promise((resolve) => {
    const child = execFile(
      ESCALATE_BIN,
      args,
      { env: { PATH: NODE_PATH, ...env }, cwd: options.cwd ?? projectRoot, uid: options.uid, timeout: 30_000 },
      (error: ExecFileException | null, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
      },
    );
    // A child that exits without reading its stdin must not fail the test with EPIPE.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input ?? "");
  });
}
