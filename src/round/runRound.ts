import { SpawnJobSchema } from "../payloads.js";
import type { SpawnTask } from "../queue/spawnQueue.js";
import type { Services } from "../services/services.js";
import type { RoundContext } from "./context.js";
import { guardRound } from "./guard.js";
import { describeSpawn, type SpawnOutcome } from "./outcome.js";
import { prepareRound } from "./prepare.js";
import { runAgentRound } from "./run.js";
import { settleRound } from "./settle.js";

/**
 * One agent round, the spawn job's whole work: guard (may this job run a round, and which) →
 * prepare (the task with the whole history, the checkout) → run (the agent until it exits, its work
 * pushed, its token revoked) → settle (recorded, told on the issue, retried or handed to a human).
 * A step that ends the round early returns why; the job keeps that as its outcome.
 */
export async function runRound(context: RoundContext): Promise<SpawnOutcome> {
  const claimed = await guardRound(context);
  if ("skipped" in claimed) return claimed;
  const prepared = await prepareRound(claimed);
  if ("skipped" in prepared) return prepared;
  const ran = await runAgentRound(prepared);
  if ("skipped" in ran) return ran;
  return settleRound(ran);
}

/**
 * The spawn worker's processor: a job's round, stoppable by `/stop` from any replica (through the
 * running agents' registry) as well as by the worker (a lost lock, a shutdown). Its outcome in a line.
 */
export function roundProcessor(services: Services, startupEpoch: Promise<number | undefined>) {
  return async (job: SpawnTask, signal: AbortSignal): Promise<string> => {
    const data = SpawnJobSchema.parse(job.data);
    const controller = new AbortController();
    const forward = () => controller.abort(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    const unregister = services.agents.register(data.repo, data.issue, controller);
    try {
      const ref = { repo: data.repo, issue: data.issue };
      const target = { installationId: data.installationId, ...ref };
      return describeSpawn(await runRound({ services, job, data, ref, target, signal: controller.signal, startupEpoch: await startupEpoch }));
    } finally {
      signal.removeEventListener("abort", forward);
      unregister();
    }
  };
}
