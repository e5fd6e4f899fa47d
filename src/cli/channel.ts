import { CHANNEL_PATHS } from "../channel/channelPaths.js";
import { GitHubError } from "../errors.js";
import type { AskEnv } from "./ask/askEnv.js";
import { proxyDispatcher } from "./proxyFetch.js";
import { EnvironmentError, UsageError } from "./usage.js";

/** Where a round's agent has the app post for it, when the app set the round channel. */
export interface Channel {
  url: string;
  token: string;
}

/** The round channel of the environment, or undefined outside a round; half of it is an EnvironmentError. */
export function channelOf(env: AskEnv): Channel | undefined {
  const url = env.ESCALATION_CHANNEL_URL;
  const token = env.ESCALATION_CHANNEL_TOKEN;
  if (!url && !token) return undefined;
  if (!url || !token) {
    const missing = url ? "ESCALATION_CHANNEL_TOKEN" : "ESCALATION_CHANNEL_URL";
    throw new EnvironmentError(`${missing} is not set, but its pair is: the app sets both for the agents it spawns.`, [missing]);
  }
  return { url, token };
}

/** How long the agent waits while the app may not write (its write budget, GitHub's pause): the app says when to come back. */
export interface ChannelRetries {
  maxRetries: number;
  minTimeout: number;
  maxTimeout: number;
}

/** Up to ten tries, each after the Retry-After the app gave (at most a minute): about ten minutes in all. */
export const CHANNEL_RETRIES: ChannelRetries = { maxRetries: 10, minTimeout: 1000, maxTimeout: 60_000 };

/**
 * Has the app post `payload` on the round's issue (its bot writes, the agent's token cannot) and
 * returns the comment's URL. A 503 (nothing was posted: the app may not write now) is tried again
 * after the Retry-After the app sends, by undici's RetryAgent. The app refusing the input is a
 * UsageError (exit 2); anything else, a closed round (401) included, a GitHubError (exit 1), in the
 * app's words.
 */
export async function postThroughChannel(
  channel: Channel,
  env: AskEnv,
  path: (typeof CHANNEL_PATHS)[keyof typeof CHANNEL_PATHS],
  payload: unknown,
  retries: ChannelRetries = CHANNEL_RETRIES,
): Promise<string> {
  const { Agent, RetryAgent, request } = await import("undici");
  // In the sandbox the channel is reached through the egress proxy, as GitHub is.
  const dispatcher = new RetryAgent((await proxyDispatcher(env)) ?? new Agent(), {
    ...retries,
    statusCodes: [503],
    methods: ["POST"],
    errorCodes: [],
    // The last answer is read like any other, not thrown.
    throwOnError: false,
  });
  let status: number;
  let text: string;
  try {
    // undici's request, not fetch: a retry sends the body again, which fetch's stream cannot.
    const response = await request(`${channel.url.replace(/\/$/, "")}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${channel.token}`, "content-type": "application/json" },
      body: JSON.stringify(payload),
      dispatcher,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new GitHubError(`The app's round channel (${channel.url}) could not be reached: ${(error as Error).message}`, undefined, { cause: error });
  } finally {
    void dispatcher.close();
  }
  let body: { url?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A proxy's or server's own page: its first line is the message.
  }
  if (status >= 200 && status < 300 && typeof body.url === "string") return body.url;
  const message = typeof body.message === "string" ? body.message : `HTTP ${status}: ${text.split("\n")[0]?.slice(0, 300) ?? ""}`;
  if (status === 400) throw new UsageError(message);
  throw new GitHubError(message, status);
}
