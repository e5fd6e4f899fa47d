import { API_PREFIX, GRAPHQL_PATH } from "../../../tools/simulator/server.js";
import type { ReceivedRequest } from "../../../tools/simulator/index.js";
import { graphqlViolations } from "./graphqlCheck.js";
import { REST_DESCRIPTION, RestDescription } from "./restDescription.js";

/** One description per process: it is large, and its compiled checks are shared by every loop. */
let shared: RestDescription | undefined;

/** Holds every request a simulator receives to GitHub's REST description and keeps what it does not document. */
export class RestConformance {
  readonly violations: string[] = [];
  private readonly description: RestDescription;

  /** Loads the description now (once per process), before the app starts sending requests. */
  constructor() {
    this.description = shared ??= new RestDescription();
  }

  /** For SimulatorOptions.inspect. Outside /api/v3 the simulator serves GraphQL only, held to GitHub's GraphQL schema. */
  readonly inspect = (request: ReceivedRequest): void => {
    const { pathname, searchParams } = request.url;
    if (pathname === GRAPHQL_PATH && request.method === "POST") {
      this.violations.push(...graphqlViolations(request.body));
      return;
    }
    if (!pathname.startsWith(`${API_PREFIX}/`)) {
      this.violations.push(`${request.method} ${pathname}: outside ${API_PREFIX}, where GitHub Enterprise serves its REST API`);
      return;
    }
    const path = pathname.slice(API_PREFIX.length);
    try {
      this.violations.push(...this.description.violations({ method: request.method, path, query: searchParams, body: request.body }));
    } catch (error) {
      // A schema the validator cannot compile must fail the test, not turn the request into a 500.
      this.violations.push(`${request.method} ${path}: could not be checked: ${(error as Error).message}`);
    }
  };

  /** Throws listing every violation, once each. */
  assertNone(): void {
    if (this.violations.length === 0) return;
    const distinct = [...new Set(this.violations)];
    throw new Error(
      `Requests GitHub's REST description (${REST_DESCRIPTION}) or GraphQL schema does not document:\n${distinct.map((v) => `  - ${v}`).join("\n")}`,
    );
  }
}
