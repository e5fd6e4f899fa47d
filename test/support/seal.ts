import { sealOf, type MarkerSeal } from "../../src/protocol/marker.js";
import { StateKey } from "../../src/protocol/stateKey.js";

/** The seal of an issue under `secret`: an app started without STATE_SECRET signs with its WEBHOOK_SECRET's. */
export function sealFor(secret: string, issue: number, repo = "acme/widgets"): MarkerSeal {
  return sealOf(StateKey.derive(secret), { repo, issue });
}

/** A seal for unit tests. */
export const testSeal = (issue = 1, repo = "acme/widgets"): MarkerSeal => sealFor("unit-test-state-secret", issue, repo);
