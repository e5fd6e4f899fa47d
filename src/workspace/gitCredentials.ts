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
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: `http.${cloneUrl}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: ${basicAuthorization(token)}`,
  };
}

/** The secrets to mask wherever git's or the agent's output is shown: the token and its header form. */
export function tokenForms(token: string): string[] {
  return [token, basicAuthorization(token).slice("Basic ".length)];
}
