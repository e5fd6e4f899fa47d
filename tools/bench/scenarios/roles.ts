import { HUMAN, REPOS, type Rig } from "../rig.js";
import { distribution, type Distribution } from "../stats.js";
import { commentCreatedPayload, fireDeliveries, signDelivery } from "../webhooks.js";
import { measureReplyToSpawn } from "./replyToSpawn.js";
import { measureThroughput } from "./throughput.js";

/**
 * (8) The app as it runs beside runners (ROLE=app with one ROLE=runner), against a bare Probot app
 * on the same host: the app's CPU per round trip once agents run elsewhere, deliveries acknowledged
 * per second as a ratio of the bare app's (the same signed deliveries, the same concurrency, the bare
 * app measured before and after ours so a drifting load meets both), and answers recorded per second.
 */
export interface RolesResult {
  replies: number;
  /** Reply's arrival → the agent's process start, on the runner. */
  replyToStart: Distribution;
  /** CPU ms per round trip: the app process (ROLE=app) and the runner (with its agents). */
  appCpuPerRoundTrip: number;
  runnerCpuPerRoundTrip: number;
  deliveries: number;
  concurrency: number;
  ours: { ackPerSecond: number; ackP50: number; failed: number; answersRecordedPerSecond: number; appCpuPerDelivery: number };
  /** The bare Probot app, before and after ours. */
  bare: Array<{ ackPerSecond: number; ackP50: number; failed: number }>;
  /** Ours ÷ the bare app's mean. */
  ackRatio: number;
}

export async function measureRoles(
  rig: Rig,
  options: { replies: number; rate: number; deliveries: number; concurrency: number; resumeWindowSeconds: number },
): Promise<RolesResult> {
  const pool = await rig.parkGates(REPOS.replies, options.replies, { inRedis: true });
  const trips = await measureReplyToSpawn(rig, pool, options.rate);
  await rig.quiesce({ timeoutMs: 60_000 }).catch(() => undefined);
  const answerable = await rig.parkGates(REPOS.burst, options.deliveries, { inRedis: true });
  const bare = [await bareAcks(rig, options.deliveries, options.concurrency)];
  const ours = await measureThroughput(rig, answerable, { concurrency: options.concurrency, resumeWindowSeconds: options.resumeWindowSeconds });
  bare.push(await bareAcks(rig, options.deliveries, options.concurrency));
  const bareMean = bare.reduce((sum, b) => sum + b.ackPerSecond, 0) / bare.length;
  return {
    replies: trips.answered - trips.missing,
    replyToStart: trips.arrivalToProcessStart,
    appCpuPerRoundTrip: trips.cpuPerRoundTrip.appSelf,
    runnerCpuPerRoundTrip: trips.cpuPerRoundTrip.runners,
    deliveries: options.deliveries,
    concurrency: options.concurrency,
    ours: {
      ackPerSecond: ours.deliveriesPerSecond,
      ackP50: ours.ackLatency.p50,
      failed: ours.failed,
      answersRecordedPerSecond: ours.answersRecordedPerSecond,
      appCpuPerDelivery: ours.cpuPerDelivery.appSelf,
    },
    bare,
    ackRatio: ours.deliveriesPerSecond / bareMean,
  };
}

/** `count` signed issue_comment.created deliveries fired at a bare Probot app, `concurrency` at a time. */
async function bareAcks(rig: Rig, count: number, concurrency: number): Promise<{ ackPerSecond: number; ackP50: number; failed: number }> {
  rig.sim.setWebhookUrl(undefined);
  let payload: unknown;
  try {
    const issue = rig.sim.createIssue(REPOS.burst, { title: "Bare Probot yardstick", body: "", author: HUMAN });
    const comment = rig.sim.comment(REPOS.burst, issue.number, HUMAN, "SQLite, keep it embedded");
    payload = commentCreatedPayload(rig.repo(REPOS.burst), rig.sim.issue(REPOS.burst, issue.number), comment);
  } finally {
    rig.sim.setWebhookUrl(rig.app.webhookUrl);
  }
  const deliveries = await Promise.all(Array.from({ length: count }, () => signDelivery(rig.secret, rig.sim.appId, "issue_comment", payload)));
  const probot = await rig.startBareProbot();
  try {
    const results = await fireDeliveries(probot.webhookUrl, deliveries, concurrency);
    const acked = results.filter((r) => typeof r.status === "number" && r.status >= 200 && r.status < 300);
    const seconds = (Math.max(...results.map((r) => r.ackedAt)) - Math.min(...results.map((r) => r.sentAt))) / 1000;
    return { ackPerSecond: acked.length / seconds, ackP50: distribution(results.map((r) => r.ackedAt - r.sentAt)).p50, failed: results.length - acked.length };
  } finally {
    await probot.stop();
  }
}
