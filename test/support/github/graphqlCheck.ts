import { parse, validate } from "graphql";
import { githubSchema } from "../../../src/dev/simulator/graphql.js";

/**
 * What GitHub's published GraphQL schema (@octokit/graphql-schema) refuses in a request body: a
 * field, argument or type GitHub lacks, or a query that does not parse. Empty when it is valid.
 */
export function graphqlViolations(body: unknown): string[] {
  const query = (body as { query?: unknown } | undefined)?.query;
  if (typeof query !== "string") return ["POST /graphql: no query string in the body"];
  try {
    return validate(githubSchema(), parse(query)).map((e) => `POST /graphql: ${e.message}`);
  } catch (error) {
    return [`POST /graphql: ${(error as Error).message}`];
  }
}
