import type { Services } from "../services/services.js";
import { AdminAuth } from "./auth.js";
import { gatesApiHandler } from "./gatesApi.js";
import { healthHandler } from "./healthz.js";
import { loginHandler } from "./login.js";
import { metricsHandler } from "./metrics.js";
import { redactTokens, type HttpHandler } from "./route.js";
import { statusPageHandler } from "./statusPage.js";

/**
 * The app's own HTTP surfaces, added to Probot's server next to its webhook route: /healthz,
 * /metrics, the status page /escalation, its JSON twin /escalation/api/gates, and /login, /logout.
 */
export function registerHttp(services: Services, addHandler: (handler: HttpHandler) => void): void {
  const auth = new AdminAuth(services.config.adminToken);
  addHandler(redactTokens);
  addHandler(healthHandler(services));
  addHandler(metricsHandler(services));
  addHandler(loginHandler(auth));
  addHandler(gatesApiHandler(services, auth));
  addHandler(statusPageHandler(services, auth));
}
