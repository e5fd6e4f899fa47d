import { parseArgs } from "node:util";
import { pino } from "pino";
import { createServices, probotClass } from "../../app/createServices.js";
import { loadConfig } from "../../config/env.js";
import { commandConnection, producerConnection } from "../../queue/connection.js";
import { Queues } from "../../queue/queues.js";
import { noAgents } from "../../sandbox/sandbox.js";
import { RoundGrants } from "../../channel/roundGrants.js";
import { reconcileAll } from "../../reconcile/reconcileAll.js";
import { appRedis, connectOnce } from "../store.js";
import { UsageError } from "../usage.js";

/**
 * `escalate reconcile`: one reconciliation run by hand, with the app's own environment (APP_ID,
 * PRIVATE_KEY, GHE_HOST, REDIS_URL or DATA_DIR…). Answers it recovers are queued for the running app's workers.
 */
export async function reconcileCommand(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { json: { type: "boolean" }, lookback: { type: "string" } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const config = loadConfig(env);
  const target = appRedis(config.redisUrl, config.dataDir);
  // The queue connections retry forever, as the app's must: an unreachable Redis (a redis.url left
  // by an app that was killed) is reported first, in seconds.
  await (await connectOnce(target)).quit();
  const redisUrl = target.url;
  const log = pino({ level: env.LOG_LEVEL === "debug" ? "debug" : "warn" });
  const producer = producerConnection(redisUrl);
  const commands = commandConnection(redisUrl);
  const queues = new Queues(producer, config.redisPrefix, (error, queue) => log.warn({ err: error.message, queue }, "queue connection error"));
  try {
    const ProbotWithConfig = probotClass(config, log);
    const services = createServices(new ProbotWithConfig(), config, log, commands, queues, noAgents(config.sandbox.mode), {
      url: "",
      grants: new RoundGrants(),
    });
    const lookbackMs = values.lookback ? Number.parseFloat(values.lookback) * 3600_000 : config.reconcileLookbackSeconds * 1000;
    const report = await reconcileAll(services, { lookbackMs, full: true });
    if (values.json) {
      out(JSON.stringify(report, null, 2));
    } else {
      out(
        `Reconciled ${report.issues} issue(s) in ${report.repositories} repositor${report.repositories === 1 ? "y" : "ies"} of ${report.installations} installation(s).`,
      );
      out(report.changes.length === 0 ? "No changes: Redis agreed with GitHub." : report.changes.map((c) => `- ${c}`).join("\n"));
      for (const error of report.errors) out(`! ${error}`);
    }
    return report.errors.length === 0 ? 0 : 1;
  } finally {
    await queues.close();
    await Promise.all([producer.quit(), commands.quit()]);
  }
}
