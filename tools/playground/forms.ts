import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { LOGINS } from "./people.js";

/** A POST the playground will not act on, with the status to answer and why. */
export class FormRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 413 | 415,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "FormRefused";
  }
}

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):\d{1,5}$/i;
const MAX_BODY_BYTES = 128 * 1024;
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const person = z.enum(LOGINS, { error: () => `must be one of ${LOGINS.join(", ")}` });

export const NewIssueForm = z.object({
  as: person,
  title: text(256).trim().min(1, "must not be empty"),
  body: text(65_536).default(""),
});

export const ActForm = z.discriminatedUnion("action", [
  z.object({ action: z.literal("comment"), as: person, body: text(65_536).trim().min(1, "must not be empty: type a comment first") }),
  z.object({ action: z.literal("label"), as: person }),
  z.object({ action: z.literal("close"), as: person }),
  z.object({ action: z.literal("reopen"), as: person }),
]);

/**
 * The form's fields, once the request is shown to come from a playground page: a same-origin (or
 * origin-less) urlencoded POST to a loopback name that carries this process's token. A page on another site can make
 * a browser POST here, but it cannot read the token.
 */
export async function readForm(req: IncomingMessage, token: string): Promise<Record<string, string>> {
  // A name other than loopback's is a page that rebound its own name to this address: it could read the token.
  if (!LOOPBACK_HOST.test(req.headers.host ?? ""))
    throw new FormRefused(403, `Refused a form for host ${req.headers.host ?? "(none)"}: open the playground at 127.0.0.1 or localhost.`);
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`)
    throw new FormRefused(403, `Refused a form posted from ${origin}: use the playground's own page.`);
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") throw new FormRefused(403, `Refused a ${site} form: use the playground's own page.`);
  if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded"))
    throw new FormRefused(415, "Post the page's form (application/x-www-form-urlencoded).");
  const fields = Object.fromEntries(new URLSearchParams(await readBody(req)));
  const given = Buffer.from(fields.token ?? "");
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new FormRefused(403, "The form's token is missing or from an earlier playground: reload the page.");
  return fields;
}

/** The form parsed by `schema`, or a FormRefused naming each bad field. */
export function parseForm<T extends z.ZodType>(schema: T, fields: Record<string, string>): z.infer<T> {
  const parsed = schema.safeParse(fields);
  if (parsed.success) return parsed.data;
  throw new FormRefused(400, parsed.error.issues.map((issue) => `${issue.path.join(".") || "form"}: ${issue.message}`).join("; "));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new FormRefused(413, `The form is larger than ${MAX_BODY_BYTES / 1024} KiB.`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
