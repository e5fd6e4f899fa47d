import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Logger } from "pino";
import { ESCALATE_DIR } from "../agent/agentEnv.js";
import { resolveCommand } from "../agent/resolveCommand.js";
import type { AppConfig } from "../config/env.js";
import { SandboxError } from "../errors.js";
import { PROXY_URL, READY_FD, ROUND_SHELL, type SandboxShell } from "./bridgeScript.js";
import { APP_DIR, bwrapArgs, SANDBOX_HOME, type SandboxLayout } from "./bwrapArgs.js";
import type { EgressEndpoints } from "./egress/egressProxy.js";
import { hostLayout } from "./hostLayout.js";
import { networkSpares, type WarmNetwork } from "./networkSpares.js";
import { probeSandbox, SANDBOX_ADVICE } from "./probe.js";
import { roundPaths } from "./roundPaths.js";

export type SandboxMode = AppConfig["sandbox"]["mode"];

/** The round as the sandbox needs it (roundPaths.ts turns it into what is shown). */
export interface SandboxRound {
  workdir: string;
  taskFile: string;
  /** The recipe's config directory, when the round has one. */
  recipeDir?: string;
}

/** One round's host paths the sandbox shows the agent. */
export interface RoundPaths {
  /** Read-write at its own path: the checkout or the fresh workdir. */
  workdir: string;
  /** Read-only at their own paths: the task file, the recipe's config, the checkout's object cache. */
  readOnly: string[];
}

/** How runAgent starts one round's gated command inside the sandbox. */
export interface RoundSandbox {
  /** The agent's executable (found on the host) as the sandbox shows it; SandboxError when it is not inside. */
  executable(hostPath: string): string;
  /** Shell the release gate runs inside before the agent; it writes a byte on READY_FD once the sandbox is up. */
  shell: SandboxShell;
  readyFd: number;
  /** The host command that runs `file args…` inside. */
  wrap(file: string, args: readonly string[]): [file: string, args: string[]];
  /** The agent's environment as the sandbox needs it: its `escalate`, a private HOME and /tmp, the proxy. */
  env(env: Record<string, string>): Record<string, string>;
  /** Ends the round's network namespace: once its command has exited, or when it was never started. */
  release(): void;
}

/** The agent sandbox (AGENT_SANDBOX), built once at start. */
export interface Sandbox {
  readonly mode: SandboxMode;
  /** `escalate` as the agent sees it: what a recipe's MCP config names. */
  readonly escalate: string;
  /** Why the sandbox cannot start, while its probe fails. */
  readonly problem: string | undefined;
  /** The round's sandbox, or undefined with AGENT_SANDBOX=none; SandboxError when it cannot start. */
  forRound(round: SandboxRound): Promise<RoundSandbox | undefined>;
  /** Ends the warm network namespaces; after the last agent has exited. */
  close(): void;
}

/** Warm network namespaces kept at most: each holds a bwrap, a shell and its socat bridges (under 2 MB). */
const MOST_SPARES = 8;

/** AGENT_SANDBOX=none: the agent runs as the app's user, with everything that user can reach. */
const NO_SANDBOX: Sandbox = { mode: "none", escalate: join(ESCALATE_DIR, "escalate"), problem: undefined, forRound: async () => undefined, close() {} };

/** For a process that runs no agents (`escalate reconcile`): nothing to probe, and no round is started. */
export function noAgents(mode: SandboxMode): Sandbox {
  return { ...NO_SANDBOX, mode, forRound: () => Promise.reject(new SandboxError("This process runs no agents.")) };
}

/**
 * Builds the sandbox and probes it once (start-up logs an error naming AGENT_SANDBOX when it cannot
 * start). A round under a failed probe probes again (the host may have been fixed since) and, still
 * failing, is refused with SandboxError: never run unsandboxed. With the egress proxy, `spares`
 * network namespaces are kept warm (networkSpares.ts), as many as rounds that can start at once
 * (AGENT_CONCURRENCY) up to MOST_SPARES; a round beyond them starts its own.
 */
export async function startSandbox(config: AppConfig["sandbox"], log: Logger, egress?: EgressEndpoints, spares = 1): Promise<Sandbox> {
  if (config.mode === "none") {
    log.warn("AGENT_SANDBOX=none: agents run unsandboxed, able to read whatever the app's user can (its key, DATA_DIR, other workspaces) and to reach Redis (README, \"The sandbox\")");
    return NO_SANDBOX;
  }
  const layout = hostLayout(config.binds);
  const bwrap = findCommand("bwrap");
  const nsenter = egress ? findCommand("nsenter") : undefined;
  const network = bwrap && nsenter && egress ? networkSpares({ bwrap, nsenter, layout, egress, spares: Math.min(spares, MOST_SPARES), log }) : undefined;
  const round = async (paths: RoundPaths): Promise<RoundSandbox> => {
    if (!bwrap) throw new SandboxError("bwrap was not found on the app's PATH");
    if (egress && !network) throw new SandboxError("nsenter (util-linux) was not found on the app's PATH");
    return roundSandbox(bwrap, layout, paths, await network?.take());
  };
  const probe = async () => {
    const problem = await probeSandbox((workdir) => round({ workdir, readOnly: [] }));
    return problem === undefined ? undefined : `The agent sandbox (AGENT_SANDBOX=bwrap) cannot start: ${problem}. ${SANDBOX_ADVICE}.`;
  };
  let problem = await probe();
  if (problem) log.error({ problem }, "the agent sandbox cannot start: rounds are refused until it can");
  else log.info({ bwrap }, "agents run in the bubblewrap sandbox (AGENT_SANDBOX=bwrap)");
  return {
    mode: "bwrap",
    escalate: `${APP_DIR}/bin/escalate`,
    get problem() {
      return problem;
    },
    async forRound(paths) {
      if (problem) problem = await probe();
      if (problem) throw new SandboxError(problem);
      return round(roundPaths(paths));
    },
    close() {
      network?.close();
    },
  };
}

function findCommand(name: string): string | undefined {
  try {
    return resolveCommand(name, "/", process.env.PATH);
  } catch {
    return undefined;
  }
}

/** `network`: the round's warm namespace, which bwrap runs in; without one, the round has a loopback only. */
function roundSandbox(bwrap: string, layout: SandboxLayout, paths: RoundPaths, network: WarmNetwork | undefined): RoundSandbox {
  const args = bwrapArgs(layout, { ...paths, network: network ? "joined" : "none" });
  const visible = [...layout.system.filter((s) => s.symlink === undefined).map((s) => s.path), ...layout.extra, paths.workdir, ...paths.readOnly];
  return {
    shell: ROUND_SHELL,
    readyFd: READY_FD,
    executable(hostPath) {
      const inApp = relative(join(layout.app.root, "bin"), hostPath);
      if (!inApp.startsWith("..") && !inApp.startsWith(sep)) return join(APP_DIR, "bin", inApp);
      const real = realpathSync(hostPath);
      if (visible.some((dir) => real === dir || real.startsWith(dir.endsWith(sep) ? dir : dir + sep))) return hostPath;
      throw new SandboxError(`The agent's command ${hostPath} is not inside the sandbox (AGENT_SANDBOX=bwrap): add its installation directory to AGENT_SANDBOX_BIND, or install it under /usr.`);
    },
    wrap: (file, rest) => (network ? network.enter(bwrap, [...args, "--", file, ...rest]) : [bwrap, [...args, "--", file, ...rest]]),
    env(env) {
      const path = (env.PATH ?? "").split(":").map((dir) => (dir === ESCALATE_DIR ? `${APP_DIR}/bin` : dir));
      const out: Record<string, string> = { ...env, PATH: path.join(":"), HOME: SANDBOX_HOME, TMPDIR: "/tmp" };
      if (network) {
        for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]) out[name] = PROXY_URL;
        out.NO_PROXY = "";
        out.no_proxy = "";
      }
      return out;
    },
    release: () => network?.release(),
  };
}
