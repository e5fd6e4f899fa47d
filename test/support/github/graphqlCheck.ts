import { queryViolations } from "../../../tools/simulator/graphql.js";

/**
 * What GitHub's published GraphQL schema (@octokit/graphql-schema) refuses in a request body: a
 * field, argument or type GitHub lacks, or a query that does not parse. Empty when it is valid.
 */
export function graphqlViolations(body: unknown): string[] {
  const query = (body as { query?: unknown } | undefined)?.query;
  if (typeof query !== "string") return ["POST /graphql: no query string in the body"];
  return queryViolations(query).map((message) => `POST /graphql: ${message}`);
}
