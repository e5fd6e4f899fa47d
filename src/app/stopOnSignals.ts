import { constants } from "node:os";

/**
 * Signals this soon after the first are the same Ctrl-C: a launcher that forwards the terminal's
 * SIGINT to the process (npm where its shell execs the script) delivers it twice, and a double-tap
 * must not turn a graceful stop into an abrupt one.
 */
const SAME_SIGNAL_MS = 1000;

export interface SignalStops {
  /** The first SIGINT or SIGTERM: stop gracefully; the process exits 0 when this resolves. */
  graceful(signal: NodeJS.Signals): Promise<void>;
  /** A later one: the operator will not wait. Say so and arrange what must survive an abrupt exit. */
  now(signal: NodeJS.Signals): void;
}

/**
 * Stops the process on SIGINT and SIGTERM: gracefully at the first, at once (128 + the signal's
 * number, as its default would) at a second one that comes after the same-Ctrl-C window.
 */
export function stopOnSignals(stops: SignalStops): void {
  let stoppingSince: number | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < SAME_SIGNAL_MS) return;
      stops.now(signal);
      // One turn of the event loop, for the last line to pass the log's formatting stream.
      setImmediate(() => process.exit(128 + constants.signals[signal]));
      return;
    }
    stoppingSince = Date.now();
    await stops.graceful(signal);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
