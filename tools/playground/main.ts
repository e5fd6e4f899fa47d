import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { stopOnSignals } from "../../src/app/stopOnSignals.js";
import { REPO, sandboxNote, startLocalStack, type LocalStack } from "../localStack.js";
import { agentToken } from "./agentToken.js";
import { banner } from "./banner.js";
import { addPeople } from "./people.js";
import { playgroundWeb } from "./web.js";

/**
 * `npm run playground`: the loop on this machine, left running for a person to play the human in a
 * browser. Redis, the GitHub simulator (its web pages are the playground), the app and the sample
 * agent, all on 127.0.0.1, until Ctrl-C.
 */
const port = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a port number` })
    .int()
    .min(0, `${name} must be a port number`)
    .max(65535, `${name} must be a port number`);
const PlaygroundEnv = z.object({
  /** The playground's pages, served by the simulator at the URLs its html_url links name; 0 picks a free port. */
  PLAYGROUND_PORT: port("PLAYGROUND_PORT").default(3030),
  /** The app's port; default: a free one. */
  PORT: port("PORT").optional(),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters").optional(),
});

/** The playground could not start; the message says what to change. */
class PlaygroundStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PlaygroundStartError";
  }
}

async function main(): Promise<void> {
  const parsed = PlaygroundEnv.safeParse(process.env);
  if (!parsed.success) throw new PlaygroundStartError(parsed.error.issues.map((issue) => issue.message).join("; "));
  const env = parsed.data;
  const adminToken = env.ADMIN_TOKEN ?? randomBytes(16).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), "escalation-playground-"));
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      appSlug: "escalation-playground",
      redisPrefix: `playground-${Date.now().toString(36)}`,
      dataDir,
      simPort: env.PLAYGROUND_PORT,
      appPort: env.PORT,
      // Quick to stop: a sample agent finishes in well under a second.
      env: { ADMIN_TOKEN: adminToken, SHUTDOWN_GRACE: process.env.SHUTDOWN_GRACE ?? "3s", AGENT_KILL_GRACE: process.env.AGENT_KILL_GRACE ?? "2s" },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new PlaygroundStartError(
        `A port the playground needs is in use (PLAYGROUND_PORT=${env.PLAYGROUND_PORT}${env.PORT ? `, PORT=${env.PORT}` : ""}): set PLAYGROUND_PORT to a free port, or 0 for any.`,
        { cause: error },
      );
    }
    throw error;
  }
  const { sim, app } = stack;
  addPeople(sim, REPO, [stack.maintainer.login]);
  // No token in these URLs: they land in browser history (the app refuses one there); the browser signs in with it.
  const links = { statusPage: `${app.url}/escalation`, inbox: `${app.url}/escalation?by=answerer` };
  sim.serveWeb(playgroundWeb({ sim, repo: REPO, links, token: randomBytes(16).toString("hex"), dispatchLabel: app.services.config.labels.dispatch }));

  let installationToken: string;
  try {
    installationToken = await agentToken(sim, stack.repo.installation_id, REPO);
  } catch (error) {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  stopOnSignals({
    async graceful(signal) {
      console.log(`\n${signal}: stopping the app, its agents, the simulator and Redis (a second Ctrl-C exits at once)`);
      await stack.close();
      rmSync(dataDir, { recursive: true, force: true });
      console.log("playground stopped");
    },
    now() {
      // The keeper stops Redis and the orphan watchdog any agent, as after a crash.
      stack.redis?.stopAtExit();
      console.log("second signal: exiting now");
    },
  });

  console.log(
    banner({
      playgroundUrl: sim.url,
      appUrl: app.url,
      apiUrl: sim.apiUrl,
      adminToken,
      redisUrl: stack.redisUrl,
      sharedRedis: stack.redis === undefined,
      redisPrefix: stack.redisPrefix,
      dataDir,
      repo: REPO,
      agentToken: installationToken,
      sandboxNote: sandboxNote(stack.sandbox),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(
    `❌ playground failed: ${error instanceof PlaygroundStartError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
