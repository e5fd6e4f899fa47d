import type { Dispatcher } from "undici";
import { z } from "zod";

/**
 * The proxy variables the CLI honours for its GitHub requests, as curl reads them (the lowercase
 * name first). Node's own fetch ignores them; in the sandbox they are the agent's only way out.
 */
export const PROXY_ENV_SHAPE = {
  https_proxy: z.string().optional(),
  HTTPS_PROXY: z.string().optional(),
  http_proxy: z.string().optional(),
  HTTP_PROXY: z.string().optional(),
  no_proxy: z.string().optional(),
  NO_PROXY: z.string().optional(),
};

type ProxyEnv = { [K in keyof typeof PROXY_ENV_SHAPE]?: string };

/** The dispatcher through the proxy the environment names (NO_PROXY honoured), or undefined when it names none. */
export async function proxyDispatcher(env: ProxyEnv): Promise<Dispatcher | undefined> {
  const httpsProxy = env.https_proxy || env.HTTPS_PROXY || "";
  const httpProxy = env.http_proxy || env.HTTP_PROXY || "";
  if (!httpsProxy && !httpProxy) return undefined;
  // Loaded only when a proxy is set: `escalate ask` outside a sandbox starts without it.
  const { EnvHttpProxyAgent } = await import("undici");
  // Explicit values, "" for unset: the agent would otherwise fall back to this process's environment.
  return new EnvHttpProxyAgent({ httpsProxy, httpProxy, noProxy: env.no_proxy || env.NO_PROXY || "" });
}

/** Octokit's fetch: through the proxy the environment names, or undefined for Node's own fetch. */
export async function proxiedFetch(env: ProxyEnv): Promise<typeof fetch | undefined> {
  const dispatcher = await proxyDispatcher(env);
  if (!dispatcher) return undefined;
  const { fetch: undiciFetch } = await import("undici");
  return ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}
