import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { bwrapArgs, type SandboxLayout } from "./bwrapArgs.js";

/** What a failing sandbox start should make the operator do. */
export const SANDBOX_ADVICE = "Install bubblewrap and socat, allow user namespaces (README, \"The sandbox\"), or set AGENT_SANDBOX=none to run agents unsandboxed";

/**
 * Starts the sandbox once with a round's options on a trivial command (checking for socat when the
 * agent's network goes through it). Undefined when it runs; else bwrap's own words.
 */
export async function probeSandbox(bwrap: string | undefined, layout: SandboxLayout, egressDir: string | undefined): Promise<string | undefined> {
  if (!bwrap) return "bwrap was not found on the app's PATH";
  const workdir = await mkdtemp(join(tmpdir(), "escalation-probe-"));
  try {
    const check = egressDir === undefined ? "exit 0" : 'command -v socat >/dev/null || { echo "socat is not installed" >&2; exit 127; }';
    const result = await execa(bwrap, [...bwrapArgs(layout, { workdir, readOnly: [], egressDir }), "--", "/bin/sh", "-c", check], { reject: false, timeout: 10_000, env: {}, extendEnv: false, stdin: "ignore" });
    if (result.exitCode === 0) return undefined;
    return (result.stderr || result.stdout || result.shortMessage || `exit ${result.exitCode}`).trim().split("\n").slice(-3).join(" ");
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
