import type { LoopEventMap } from "../events.js";
import type { Services } from "../services/services.js";

/** Stops mirroring the loop's events (the app's shutdown). */
export type StopMirroring = () => void;

/**
 * Mirrors gates to a Slack channel when SLACK_BOT_TOKEN and SLACK_CHANNEL are set: a message when a
 * gate opens, updated when it is answered, revised or closed. The loop's events only queue a mirror
 * job (never awaited by the loop; a job that cannot be queued is logged and dropped), which the
 * mirror worker performs (processMirrorJob.ts). Returns undefined when Slack is not configured.
 */
export function mirrorEvents(services: Pick<Services, "config" | "log" | "events" | "queues">): StopMirroring | undefined {
  if (!services.config.slack) return undefined;
  const log = services.log.child({ name: "mirror" });
  const enqueue = async (type: "open" | "update", gateId: string, state?: string) => {
    try {
      await services.queues.addMirror(type, gateId, state);
    } catch (error) {
      log.warn({ err: error, gate: gateId }, "could not queue a Slack mirror job; the loop goes on without it");
    }
  };
  const listeners: { [K in keyof LoopEventMap]?: (...args: LoopEventMap[K]) => unknown } = {
    "gate.opened": ({ gate }) => enqueue("open", gate.id),
    "gate.answered": ({ gate }) => enqueue("update", gate.id, "answered"),
    "gate.closed": ({ gate, state }) => enqueue("update", gate.id, state),
    // The message shows the answers: a withdrawn or edited one must go from Slack too.
    "gate.revised": ({ gateId, at }) => enqueue("update", gateId, `revised-${at}`),
  };
  services.events.on("gate.opened", listeners["gate.opened"]!);
  services.events.on("gate.answered", listeners["gate.answered"]!);
  services.events.on("gate.closed", listeners["gate.closed"]!);
  services.events.on("gate.revised", listeners["gate.revised"]!);
  return () => {
    services.events.off("gate.opened", listeners["gate.opened"]!);
    services.events.off("gate.answered", listeners["gate.answered"]!);
    services.events.off("gate.closed", listeners["gate.closed"]!);
    services.events.off("gate.revised", listeners["gate.revised"]!);
  };
}
