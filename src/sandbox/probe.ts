import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onOutput } from "../agent/agentProcess.js";
import { RELEASE_LINE } from "../agent/releaseGate.js";
import { SandboxError } from "../errors.js";
import type { RoundSandbox } from "./round.js";

/** What a failing sandbox start should make the operator do. */
export const SANDBOX_ADVICE =
  'Install bubblewrap, socat and util-linux (nsenter), allow user namespaces (README, "The sandbox"), or set AGENT_SANDBOX=none to run agents unsandboxed';

/** Longest the probe's round may take. */
const PROBE_MS = 10_000;

/**
 * Starts a round's sandbox once, as a round would (its warm network namespace included), on a
 * trivial command. Undefined when it runs; else what failed, in bwrap's or nsenter's own words.
 */
export async function probeSandbox(round: (workdir: string) => Promise<RoundSandbox>): Promise<string | undefined> {
  const workdir = await mkdtemp(join(tmpdir(), "escalation-probe-"));
  let inside: RoundSandbox | undefined;
  try {
    inside = await round(workdir);
    const { subprocess } = inside.start("/bin/sh", ["-c", "exit 0"], {});
    let said = "";
    onOutput(subprocess, (chunk) => (said = (said + chunk.toString("utf8")).slice(-2000)));
    subprocess.stdin?.end(RELEASE_LINE);
    const timer = setTimeout(() => subprocess.kill("SIGKILL"), PROBE_MS);
    const result = await subprocess;
    clearTimeout(timer);
    if (result.exitCode === 0) return undefined;
    if (result.signal === "SIGKILL") return `it did not finish within ${PROBE_MS / 1000} s`;
    return (said.trim() || result.shortMessage || `exit ${result.exitCode}`).trim().split("\n").slice(-3).join(" ");
  } catch (error) {
    if (error instanceof SandboxError) return error.message.replace(/\.$/, "");
    throw error;
  } finally {
    inside?.release();
    await rm(workdir, { recursive: true, force: true });
  }
}
