import type { Probot } from "probot";
import { withDeadline } from "../deadline.js";
import { ProtocolError, StoreUnavailableError } from "../errors.js";
import type { Services } from "../services/services.js";
import { HANDLED_EVENTS } from "./handledEvents.js";
import { isOwnLabelRemoval } from "./ownEchoes.js";
import { toInboundEvent } from "./toInboundEvent.js";

/** As long as the enqueue may take: past it GitHub gets a 5xx and can redeliver. */
const STORE_DEADLINE_MS = 3000;

/**
 * The webhook handler only validates and records: it enqueues the event under its delivery id and
 * returns, so GitHub gets its answer in milliseconds and a redelivery is a no-op. If Redis is
 * down, the enqueue throws and Probot answers 500, so the delivery shows as failed on GitHub.
 */
export function registerWebhooks(app: Probot, services: Services): void {
  app.on([...HANDLED_EVENTS], async (context) => {
    let event;
    try {
      event = toInboundEvent(context.name, context.payload, context.id);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      services.log.warn({ delivery: context.id, err: error.message }, "rejected webhook payload");
      services.events.notify("webhook.delivery", { event: context.name, result: "rejected" });
      return;
    }
    if (!event) {
      // Events the app does not act on, and bots' comments without a marker: no reply, a debug line.
      services.log.debug({ delivery: context.id, event: context.name, sender: context.payload.sender?.login }, "ignored webhook delivery");
      services.events.notify("webhook.delivery", { event: context.name, result: "ignored" });
      return;
    }
    try {
      // The echo of the app's own label removal: dropped here, as a bot's label is (toInboundEvent).
      if (
        await withDeadline(isOwnLabelRemoval(event, services.issues), STORE_DEADLINE_MS, () => new Error(`Redis did not answer within ${STORE_DEADLINE_MS} ms`))
      ) {
        services.log.debug({ delivery: context.id, event: context.name }, "ignored webhook delivery: the app's own label removal");
        services.events.notify("webhook.delivery", { event: context.name, result: "ignored" });
        return;
      }
      await services.queues.addInbound(event, STORE_DEADLINE_MS);
    } catch (error) {
      services.events.notify("webhook.delivery", { event: context.name, result: "error" });
      throw new StoreUnavailableError(`Could not record delivery ${context.id} (Redis unreachable?): ${(error as Error).message}`, { cause: error });
    }
    services.events.notify("webhook.delivery", { event: context.name, result: "queued" });
  });
}
