import { lstatSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";
import { projectRoot } from "../config/projectRoot.js";
import type { SandboxLayout } from "./bwrapArgs.js";

/** The system's top-level directories; on a merged-/usr system all but /usr are symlinks into it. */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"];

/** What of /etc programs commonly read: users, name lookup, certificates, git, time zone, the loader. */
const ETC = [
  "passwd",
  "group",
  "hosts",
  "host.conf",
  "nsswitch.conf",
  "gai.conf",
  "protocols",
  "services",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "gitconfig",
  "localtime",
  "timezone",
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "os-release",
  "mime.types",
].map((name) => `/etc/${name}`);

/** What `escalate` (bin/escalate) needs of the app: never the app's directory itself (.env, key file, data/). */
const APP_ENTRIES = ["bin", "dist", "node_modules", "package.json"];

/** Reads the host once: which system paths exist and how, where node is, who runs the app. */
export function hostLayout(extraBinds: readonly string[], execPath = process.execPath): SandboxLayout {
  const system: SandboxLayout["system"] = [];
  for (const path of SYSTEM) {
    const kind = kindOf(path);
    if (kind === "symlink") system.push({ path, symlink: readlinkSync(path) });
    else if (kind === "other") system.push({ path });
  }
  // node's install prefix (…/bin/node → …): under /usr it is already there.
  const nodePrefix = dirname(dirname(execPath));
  const extra = [...(nodePrefix === "/usr" || nodePrefix.startsWith("/usr/") ? [] : [nodePrefix]), ...extraBinds];
  return { system, etc: ETC, extra, app: { root: projectRoot, entries: APP_ENTRIES }, asRoot: process.getuid?.() === 0 };
}

function kindOf(path: string): "symlink" | "other" | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? "symlink" : "other";
  } catch {
    return undefined;
  }
}
