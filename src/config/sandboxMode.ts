import { ConfigError } from "../errors.js";

/** AGENT_SANDBOX: bubblewrap by default on Linux; elsewhere running agents unsandboxed must be chosen. */
export function sandboxMode(value: "bwrap" | "none" | undefined, platform: NodeJS.Platform): "bwrap" | "none" {
  if (value) return value;
  if (platform === "linux") return "bwrap";
  throw new ConfigError(
    `AGENT_SANDBOX: the agent sandbox (bubblewrap) needs Linux, and this is ${platform}. Set AGENT_SANDBOX=none to run agents unsandboxed (README, "The sandbox").`,
  );
}
