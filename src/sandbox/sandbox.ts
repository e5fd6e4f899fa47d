import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Logger } from "pino";
import { ESCALATE_DIR } from "../agent/agentEnv.js";
import { launcherCommand } from "../agent/releaseGate.js";
import { resolveCommand } from "../agent/resolveCommand.js";
import type { AppConfig } from "../config/appConfig.js";
import { SandboxError } from "../errors.js";
import { PROXY_URL, READY_FD, ROUND_SHELL } from "./bridgeScript.js";
import { APP_DIR, roundArgs, SANDBOX_HOME, sandboxArgs, type RoundNetwork, type SandboxLayout } from "./bwrapArgs.js";
import type { EgressEndpoints } from "./egress/egressProxy.js";
import { hostLayout } from "./hostLayout.js";
import { networkSpares, type WarmNetwork } from "./networkSpares.js";
import { pendingRound, ROUND_ARGS_FD, type PendingRound } from "./pendingRound.js";
import { probeSandbox, SANDBOX_ADVICE } from "./probe.js";
import { roundPaths } from "./roundPaths.js";
import type { RoundPaths, RoundSandbox, SandboxRound } from "./round.js";

export type SandboxMode = AppConfig["sandbox"]["mode"];

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

/** Warm network namespaces kept at most: each holds a bwrap, a shell, its socat bridges and a waiting round's bwrap (under 3 MB). */
const MOST_SPARES = 8;

/** AGENT_SANDBOX=none: the agent runs as the app's user, with everything that user can reach. */
const NO_SANDBOX: Sandbox = {
  mode: "none",
  escalate: join(ESCALATE_DIR, "escalate"),
  problem: undefined,
  forRound: () => Promise.resolve(undefined),
  close() {},
};

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
    log.warn(
      'AGENT_SANDBOX=none: agents run unsandboxed, able to read whatever the app\'s user can (its key, DATA_DIR, other workspaces) and to reach Redis (README, "The sandbox")',
    );
    return NO_SANDBOX;
  }
  const layout = hostLayout(config.binds);
  const bwrap = findCommand("bwrap");
  const nsenter = egress ? findCommand("nsenter") : undefined;
  const prepare = (network: RoundNetwork, enter = (file: string, args: readonly string[]): [string, string[]] => [file, [...args]]) =>
    pendingRound(enter(bwrap!, [...sandboxArgs(layout, network, ROUND_ARGS_FD), "--", ...launcher()]));
  const network =
    bwrap && nsenter && egress
      ? networkSpares({ bwrap, nsenter, layout, egress, spares: Math.min(spares, MOST_SPARES), prepare: (enter) => prepare("joined", enter), log })
      : undefined;
  const round = async (paths: RoundPaths): Promise<RoundSandbox> => {
    if (!bwrap) throw new SandboxError("bwrap was not found on the app's PATH");
    if (egress && !network) throw new SandboxError("nsenter (util-linux) was not found on the app's PATH");
    const warm = await network?.take();
    return roundSandbox(layout, paths, warm?.round ?? prepare("none"), warm);
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

/** The sandbox's launcher after bwrap's `--`: the release gate, which says first that the sandbox is up. */
function launcher(): string[] {
  const [file, args] = launcherCommand(ROUND_SHELL);
  return [file, ...args];
}

/**
 * `round`: the round's bwrap, waiting for its arguments: in `network`, the round's warm namespace,
 * or without one (no egress proxy) started just now in a namespace of its own with a loopback only.
 */
function roundSandbox(layout: SandboxLayout, paths: RoundPaths, round: PendingRound, network: WarmNetwork | undefined): RoundSandbox {
  const visible = [...layout.system.filter((s) => s.symlink === undefined).map((s) => s.path), ...layout.extra, paths.workdir, ...paths.readOnly];
  return {
    readyFd: READY_FD,
    executable(hostPath) {
      const inApp = relative(join(layout.app.root, "bin"), hostPath);
      if (!inApp.startsWith("..") && !inApp.startsWith(sep)) return join(APP_DIR, "bin", inApp);
      const real = realpathSync(hostPath);
      if (visible.some((dir) => real === dir || real.startsWith(dir.endsWith(sep) ? dir : dir + sep))) return hostPath;
      throw new SandboxError(
        `The agent's command ${hostPath} is not inside the sandbox (AGENT_SANDBOX=bwrap): add its installation directory to AGENT_SANDBOX_BIND, or install it under /usr.`,
      );
    },
    start: (file, args, env) => round.start(roundArgs(paths), file, args, env),
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
    release() {
      round.discard();
      network?.release();
    },
  };
}
