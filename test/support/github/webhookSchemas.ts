import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type AnySchema, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * GitHub's official webhook schemas (@octokit/openapi-webhooks), one validator per event and action,
 * compiled on first use: the description is large and most runs need only a few of its schemas.
 */

/** github.com's, and the newest GitHub Enterprise Server's (the simulator serves REST under /api/v3, as GHES does). */
export const WEBHOOK_DESCRIPTIONS = ["api.github.com", "ghes-3.19"] as const;
export type WebhookDescriptionName = (typeof WEBHOOK_DESCRIPTIONS)[number];

export interface SchemaProblem {
  /** JSON pointer into the payload, e.g. "/repository/node_id" ("" for the payload itself). */
  at: string;
  message: string;
}

export type SchemaCheck = { found: false } | { found: true; problems: SchemaProblem[] };

const require = createRequire(import.meta.url);
// ajv-formats is CommonJS with a default export; under NodeNext its callable is the module's default.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 };

interface WebhookDescription {
  webhooks: Record<string, { post?: { operationId?: string; requestBody?: { content?: Record<string, { schema?: unknown }> } } }>;
  components: Record<string, unknown>;
}

export class WebhookSchemas {
  private readonly ajv: Ajv2020;
  /** operationId ("pull-request/labeled") → the payload schema. */
  private readonly schemas = new Map<string, unknown>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(description: WebhookDescriptionName) {
    const doc = JSON.parse(readFileSync(require.resolve(`@octokit/openapi-webhooks/generated/${description}.json`), "utf8")) as WebhookDescription;
    for (const webhook of Object.values(doc.webhooks)) {
      const schema = webhook.post?.requestBody?.content?.["application/json"]?.schema;
      if (webhook.post?.operationId && schema) this.schemas.set(webhook.post.operationId, schema);
    }
    // OpenAPI adds keywords JSON Schema does not know (discriminator, example): not strict.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: "webhooks", components: doc.components });
  }

  check(event: string, action: string, payload: unknown): SchemaCheck {
    const validate = this.validator(operationId(event, action));
    if (!validate) return { found: false };
    return { found: true, problems: validate(payload) ? [] : describe(validate.errors ?? []) };
  }

  private validator(operationId: string): ValidateFunction | undefined {
    const cached = this.compiled.get(operationId);
    if (cached) return cached;
    const schema = this.schemas.get(operationId);
    if (schema === undefined) return undefined;
    // The schema's $refs point into the description's components, registered above as "webhooks".
    const validate = this.ajv.compile(rebase(schema));
    this.compiled.set(operationId, validate);
    return validate;
  }
}

/** The description names "pull_request"/"ready_for_review" as "pull-request/ready-for-review". */
function operationId(event: string, action: string): string {
  return `${event}/${action}`.replace(/_/g, "-");
}

/** Local refs ("#/components/…") become refs into the registered description. */
function rebase(schema: unknown): AnySchema {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/") ? `webhooks${value}` : value,
  );
}

/** One line per problem; "oneOf"/"anyOf" summaries are dropped in favour of the branch errors under them. */
function describe(errors: readonly ErrorObject[]): SchemaProblem[] {
  const problems = errors.map((e) => ({
    at: e.instancePath,
    message:
      e.keyword === "required"
        ? `missing ${String(e.params.missingProperty)}`
        : `${e.message ?? e.keyword}${e.keyword === "enum" ? ` ${JSON.stringify(e.params.allowedValues)}` : ""}`,
  }));
  return [...new Map(problems.map((p) => [`${p.at} ${p.message}`, p])).values()];
}
