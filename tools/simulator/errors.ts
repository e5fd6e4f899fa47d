/**
 * An error GitHub would answer with. Routes turn it into `{message, documentation_url, ...}`;
 * the "as a person" methods let it propagate so a test sees the same refusal a REST client would.
 */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    /** Response headers GitHub sends with this error (e.g. `retry-after`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function notFound(message = "Not Found"): ApiError {
  return new ApiError(404, message);
}

export function validationFailed(resource: string, code: string, field: string, message?: string): ApiError {
  return new ApiError(422, "Validation Failed", {
    errors: [{ resource, code, field, ...(message === undefined ? {} : { message }) }],
  });
}
