import type { Services } from "../services.js";
import { gatesApiHandler } from "./gatesApi.js";
import { healthHandler } from "./healthz.js";
import { metricsHandler } from "./metrics.js";
import { redactTokens, type HttpHandler } from "./route.js";
import { statusPageHandler } from "./statusPage.js";

/**
 * The app's own HTTP surfaces, added to Probot's server next to its webhook route:
 * /healthz, /metrics, the status page /escalation and its JSON twin /escalation/api/gates.
 */
export function registerHttp(services: Services, addHandler: (handler: HttpHandler) => void): void {
  addHandler(redactTokens);
  addHandler(healthHandler(services));
  addHandler(metricsHandler(services));
  addHandler(gatesApiHandler(services));
  addHandler(statusPageHandler(services));
}
