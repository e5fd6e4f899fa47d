import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type AnySchema, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * Checks REST requests against GitHub's official description (@octokit/openapi): the path, the
 * method, every query parameter and every body field must be documented. Loaded once per process;
 * each operation's checks are compiled on first use.
 */

/** The newest GitHub Enterprise Server's: the simulator serves REST under /api/v3, as GHES does. */
export const REST_DESCRIPTION = "ghes-3.19";

export interface RestRequest {
  method: string;
  /** Below /api/v3, without the query string. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when there is none. */
  body: unknown;
}

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 };

interface Parameter {
  name: string;
  in: string;
  schema?: unknown;
}

interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter>; schemas: Record<string, unknown> };
}

interface Template {
  template: string;
  pattern: RegExp;
  params: number;
  operations: Record<string, Operation>;
}

interface CompiledOperation {
  query: Map<string, ValidateFunction | undefined>;
  body: ValidateFunction | undefined;
}

export class RestDescription {
  private readonly templates: Template[];
  private readonly parameters: Record<string, Parameter>;
  /** Bodies are JSON, checked as sent; query strings are text, coerced to the parameter's type first. */
  private readonly bodies: Ajv2020;
  private readonly queries: Ajv2020;
  private readonly compiled = new Map<string, CompiledOperation>();

  constructor(description = REST_DESCRIPTION) {
    const doc = JSON.parse(readFileSync(require.resolve(`@octokit/openapi/generated/${description}.json`), "utf8")) as Description;
    this.parameters = doc.components.parameters;
    this.templates = Object.entries(doc.paths).map(([template, operations]) => ({
      template,
      pattern: templatePattern(template),
      params: (template.match(/\{/g) ?? []).length,
      operations,
    }));
    // Not strict: OpenAPI adds keywords JSON Schema does not know.
    this.bodies = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
    this.bodies.addSchema({ $id: "rest", components: { schemas: strictSchema(bodySchemas(doc)) } });
    this.queries = addFormats.default(new Ajv2020({ strict: false, allErrors: true, coerceTypes: true }));
  }

  /** What GitHub does not document about the request; empty when all of it is. */
  violations(request: RestRequest): string[] {
    const method = request.method.toLowerCase();
    const matches = this.templates.filter((t) => t.pattern.test(request.path));
    if (matches.length === 0) return [`${request.method} ${request.path}: no such path in GitHub's REST API`];
    // A literal segment beats a placeholder: /issues/comments is not issue "comments".
    const template = matches.filter((t) => t.operations[method]).sort((a, b) => a.params - b.params)[0];
    if (!template) return [`${request.method} ${request.path}: ${matches[0]!.template} has no ${request.method}`];
    const route = `${request.method} ${template.template}`;
    const operation = this.operation(route, template.operations[method]!);
    const problems: string[] = [];
    for (const [name, value] of request.query) {
      if (!operation.query.has(name)) {
        problems.push(`${route}: undocumented query parameter "${name}"`);
        continue;
      }
      const validate = operation.query.get(name);
      if (validate && !validate(value))
        problems.push(`${route}: query parameter "${name}"=${JSON.stringify(value)} ${this.queries.errorsText(validate.errors, { dataVar: name })}`);
    }
    if (request.body !== undefined) {
      if (!operation.body) problems.push(`${route}: takes no request body`);
      else if (!operation.body(request.body)) problems.push(...bodyProblems(operation.body.errors ?? []).map((problem) => `${route}: ${problem}`));
    }
    return problems;
  }

  private operation(route: string, operation: Operation): CompiledOperation {
    const cached = this.compiled.get(route);
    if (cached) return cached;
    const query = new Map<string, ValidateFunction | undefined>();
    for (const entry of operation.parameters ?? []) {
      const parameter = "$ref" in entry ? this.parameters[entry.$ref.replace("#/components/parameters/", "")] : entry;
      if (parameter?.in === "query")
        query.set(parameter.name, parameter.schema ? this.queries.compile(strictSchema(parameter.schema) as AnySchema) : undefined);
    }
    const schema = operation.requestBody?.content?.["application/json"]?.schema;
    const compiled = { query, body: schema === undefined ? undefined : this.bodies.compile(rebase(strictSchema(schema))) };
    this.compiled.set(route, compiled);
    return compiled;
  }
}

/** The component schemas request bodies use, directly or through others: a small part of the description, quick to register. */
function bodySchemas(doc: Description): Record<string, unknown> {
  const used: Record<string, unknown> = {};
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const name = key === "$ref" && typeof value === "string" ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : undefined;
      if (name !== undefined && !(name in used)) {
        used[name] = doc.components.schemas[name];
        visit(used[name]);
      } else visit(value);
    }
  };
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) visit(operation.requestBody);
  }
  return used;
}

/** One line per problem, naming an undocumented field. */
function bodyProblems(errors: readonly ErrorObject[]): string[] {
  const lines = errors.map((e) => {
    const at = `body${e.instancePath.replace(/\//g, ".")}`;
    return e.keyword === "additionalProperties" ? `undocumented body field ${at}.${String(e.params.additionalProperty)}` : `${at} ${e.message ?? e.keyword}`;
  });
  return [...new Set(lines)];
}

/** "{owner}" matches one segment; a file path or a git ref may span several. */
function templatePattern(template: string): RegExp {
  const source = template.replace(/\{(\w+)\}|[^{]+/g, (part, name: string | undefined) => {
    if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    return name === "path" || name === "ref" ? ".+" : "[^/]+";
  });
  return new RegExp(`^${source}/?$`);
}

/**
 * A copy fit for a JSON Schema validator, and strict: every object schema that lists its properties
 * and says nothing of others accepts no others (GitHub ignores an undocumented body field, which is
 * how a misspelt one goes unnoticed), and OpenAPI 3.0's `nullable` becomes a null alternative.
 */
function strictSchema<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const { nullable, ...object } = value as Record<string, unknown>;
    const closable = object.properties !== undefined && object.additionalProperties === undefined && object.allOf === undefined;
    if (closable) object.additionalProperties = false;
    return nullable === true ? allowNull(object) : object;
  }) as T;
}

function allowNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  for (const key of ["oneOf", "anyOf"] as const) {
    if (Array.isArray(schema[key])) return { ...schema, [key]: [...(schema[key] as unknown[]), { type: "null" }] };
  }
  return schema;
}

/** Local refs ("#/components/…") become refs into the registered description. */
function rebase(schema: unknown): AnySchema {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/") ? `rest${value}` : value,
  );
}
