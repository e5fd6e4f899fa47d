import { HUMAN, cpuDelta, type AppMemory, type CpuTimes, type ParkedGate, type Rig } from "../rig.js";
import { sleep, waitUntil } from "../pool.js";
import { distribution, type Distribution } from "../stats.js";
import { commentCreatedPayload, fireDeliveries, signDelivery } from "../webhooks.js";

/**
 * (2) Sustained webhook throughput with many gates parked: the benchmark fires one signed
 * issue_comment.created delivery per answerable gate, `concurrency` at a time, straight at the
 * app's webhook endpoint (each reply comment exists in the simulator, so the app's reactions and
 * label changes land). Reported: deliveries acknowledged per second (2xx), the time to record
 * every answer (the open-gates index shrinking), and agents resumed per second over a window.
 */
export interface ThroughputResult {
  parkedAtStart: number;
  deliveries: number;
  concurrency: number;
  acked: number;
  failed: number;
  ackSeconds: number;
  deliveriesPerSecond: number;
  ackLatency: Distribution;
  answersRecorded: number;
  recordSeconds: number;
  answersRecordedPerSecond: number;
  resumeWindowSeconds: number;
  resumed: number;
  resumesPerSecond: number;
  appMemoryAfter: AppMemory;
  /** CPU ms per delivery while they were being acknowledged (the app also processes them meanwhile). */
  cpuPerDelivery: CpuTimes;
}

export async function measureThroughput(
  rig: Rig,
  gates: readonly ParkedGate[],
  options: { concurrency: number; resumeWindowSeconds: number },
): Promise<ThroughputResult> {
  await rig.quiesce({ feedback: false });
  const openKey = rig.store.gates.keys.openGates();
  const parkedAtStart = await rig.redis.zcard(openKey);
  // The replies exist in the simulator (delivered to nobody); the benchmark delivers them itself.
  rig.sim.setWebhookUrl(undefined);
  const payloads = (() => {
    try {
      return gates.map((gate) => {
        const comment = rig.sim.comment(gate.repo, gate.issue, HUMAN, "SQLite, keep it embedded");
        return commentCreatedPayload(rig.repo(gate.repo), rig.sim.issue(gate.repo, gate.issue), comment);
      });
    } finally {
      rig.sim.setWebhookUrl(rig.app.webhookUrl);
    }
  })();
  const deliveries = await Promise.all(payloads.map((payload) => signDelivery(rig.secret, rig.sim.appId, "issue_comment", payload)));

  const cpuBefore = await rig.cpu();
  const firedAt = Date.now();
  const results = await fireDeliveries(rig.app.webhookUrl, deliveries, options.concurrency);
  const cpuPerDelivery = cpuDelta(await rig.cpu(), cpuBefore, deliveries.length);
  const acked = results.filter((r) => typeof r.status === "number" && r.status >= 200 && r.status < 300);
  const firstSent = Math.min(...results.map((r) => r.sentAt));
  const lastAck = Math.max(...results.map((r) => r.ackedAt));
  const ackSeconds = (lastAck - firstSent) / 1000;

  let recordSeconds = Number.NaN;
  const target = parkedAtStart - gates.length;
  await waitUntil("every answer to be recorded", async () => (await rig.redis.zcard(openKey)) <= target, 180_000, 20)
    .then(() => (recordSeconds = (Date.now() - firedAt) / 1000))
    .catch(() => undefined);
  const answersRecorded = parkedAtStart - (await rig.redis.zcard(openKey));
  const appMemoryAfter = await rig.app.memory();

  const windowEnd = firedAt + options.resumeWindowSeconds * 1000;
  const wanted = new Set(gates.map((g) => `${g.repo.toLowerCase()}#${g.issue}`));
  const resumedBy = (until: number) => {
    rig.agents.poll();
    return rig.agents.all().filter((a) => wanted.has(`${a.repo.toLowerCase()}#${a.issue}`) && a.processStart <= until).length;
  };
  while (Date.now() < windowEnd && resumedBy(Date.now()) < gates.length) await sleep(200);
  const windowSeconds = Math.min(options.resumeWindowSeconds, (Date.now() - firedAt) / 1000);
  const resumed = resumedBy(firedAt + windowSeconds * 1000);
  return {
    parkedAtStart,
    deliveries: deliveries.length,
    concurrency: options.concurrency,
    acked: acked.length,
    failed: results.length - acked.length,
    ackSeconds,
    deliveriesPerSecond: acked.length / ackSeconds,
    ackLatency: distribution(results.map((r) => r.ackedAt - r.sentAt)),
    answersRecorded,
    recordSeconds,
    answersRecordedPerSecond: answersRecorded / (Number.isFinite(recordSeconds) ? recordSeconds : (Date.now() - firedAt) / 1000),
    resumeWindowSeconds: windowSeconds,
    resumed,
    resumesPerSecond: resumed / windowSeconds,
    appMemoryAfter,
    cpuPerDelivery,
  };
}
