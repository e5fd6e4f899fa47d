import { generateKeyPairSync } from "node:crypto";
import nock from "nock";
import { pino } from "pino";
import type { Probot } from "probot";
import { probotClass } from "../../src/app/createServices.js";
import { loadConfig } from "../../src/config/env.js";
import type { AppConfig } from "../../src/config/appConfig.js";
import type { InstallationOctokit } from "../../src/github/octokit.js";

/*
 * Unit tests at the GitHub HTTP boundary: the app's real Probot and Octokit (retry and throttling
 * off, as in the end-to-end tests) against GitHub's API as nock answers it. The API is a loopback
 * address the net-connect allowance leaves out, so a request nobody expected fails with nock's error
 * and, were nock not to intercept at all, could reach nothing but this machine.
 */
const HOST = "127.0.0.9";
export const API = `http://${HOST}`;
/** Where GitHub Enterprise serves the REST API, and the app with GHE_HOST set calls it. */
export const V3 = "/api/v3";

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

export interface GitHubApi {
  /** nock's scope for the API: each test states the requests it expects and GitHub's answers. */
  scope: nock.Scope;
  /** The App's configuration, GHE_HOST pointing at the API. */
  config: AppConfig;
  /** The App as the server builds it (APP_ID 1), its JWT signed with a key made for the run. */
  probot: Probot;
  /** An installation's Octokit as `probot.auth(id)` gives it (GitHub issues its token `ghs_installation<id>`), and how often it was built. */
  installation(id?: number): { octokit: () => Promise<InstallationOctokit>; built: { count: number } };
  /** Fails unless every expected request came and nothing else was asked; then lets the network be. */
  done(): void;
}

/** Intercepts GitHub's API for one test; every other request stays on loopback. `throttle`, `retry`: Octokit's throttling or retry on, as in production. */
export function nockGitHub(options: { throttle?: boolean; retry?: boolean } = {}): GitHubApi {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  const unexpected: string[] = [];
  const noMatch = (req: { method?: string; path?: string; href?: string }) => unexpected.push(`${req.method} ${req.path ?? req.href}`);
  nock.emitter.on("no match", noMatch);
  const config = loadConfig({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: "unused",
    GHE_HOST: HOST,
    GHE_PROTOCOL: "http",
    REDIS_URL: "redis://127.0.0.1:6379",
  });
  const probot = new (probotClass(config, pino({ level: "silent" }), { throttle: options.throttle ?? false, retry: options.retry ?? false }))();
  const scope = nock(API);
  return {
    scope,
    config,
    probot,
    installation(id = 4242) {
      const built = { count: 0 };
      return {
        built,
        octokit: async () => {
          // Probot asks for the token on the Octokit's first request, if any, and keeps it.
          if (built.count++ === 0) {
            scope
              .post(`${V3}/app/installations/${id}/access_tokens`)
              .optionally()
              .reply(201, { token: `ghs_installation${id}`, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
          }
          return await probot.auth(id);
        },
      };
    },
    done() {
      nock.emitter.removeListener("no match", noMatch);
      try {
        if (unexpected.length > 0) throw new Error(`GitHub was asked what no test expected: ${unexpected.join(", ")}`);
        scope.done();
      } finally {
        nock.cleanAll();
        nock.enableNetConnect();
      }
    },
  };
}

/** The headers of GitHub's primary rate limit answer (a 403 with no requests left until the reset). */
export const rateLimited = { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600) };
