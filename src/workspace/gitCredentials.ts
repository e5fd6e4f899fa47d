/**
 * The one place that knows how git is given the token: an `http.<origin>.extraHeader` with HTTP
 * Basic `x-access-token:<token>` (what GitHub takes for installation tokens), set through git's
 * GIT_CONFIG_COUNT/KEY/VALUE environment variables. So the token is in no argv, no remote URL and
 * no `.git/config`, and the header goes only to the repository's own URL.
 */

/** The `Authorization` header value for `token`; also a form of the secret to mask in output. */
export function basicAuthorization(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`, "utf8").toString("base64")}`;
}

/** Environment entries that authenticate git's requests to `cloneUrl` (and below it) with `token`. */
export function gitAuthEnv(cloneUrl: string, token: string): Record<string, string> {
  return configEnv([[`http.${cloneUrl}.extraHeader`, `Authorization: ${basicAuthorization(token)}`]]);
}

/**
 * The agent's git: it fetches from `cloneUrl` with its own read-only token, and its pushes there are
 * rewritten (`pushInsteadOf`) to the round channel's `push.url`, which takes them with the round's
 * credential and lets through only the issue's branch (src/channel/).
 */
export function agentGitEnv(cloneUrl: string, token: string, push: { url: string; credential: string }): Record<string, string> {
  return configEnv([
    [`http.${cloneUrl}.extraHeader`, `Authorization: ${basicAuthorization(token)}`],
    [`url.${push.url}.pushInsteadOf`, cloneUrl],
    [`http.${push.url}.extraHeader`, `Authorization: Bearer ${push.credential}`],
  ]);
}

function configEnv(entries: ReadonlyArray<[key: string, value: string]>): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** The secrets to mask wherever git's or the agent's output is shown: the token and its header form. */
export function tokenForms(token: string): string[] {
  return [token, basicAuthorization(token).slice("Basic ".length)];
}
