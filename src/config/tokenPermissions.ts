import { ConfigError } from "../errors.js";

/** AGENT_TOKEN_PERMISSIONS: "issues:write,contents:read" as the permissions of the agent's token. */
export function parsePermissions(text: string): Record<string, "read" | "write"> {
  const out: Record<string, "read" | "write"> = {};
  for (const pair of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, level] = pair.split(":").map((p) => p.trim());
    if (!name || !/^[a-z_]+$/.test(name) || (level !== "read" && level !== "write")) {
      throw new ConfigError(`AGENT_TOKEN_PERMISSIONS: "${pair}" must look like issues:write or contents:read.`);
    }
    out[name] = level;
  }
  return out;
}
