/** The zod builders the environment's schema (./envSchema.ts) makes its fields of. */
import { z } from "zod";
import { parseDuration } from "../protocol/duration.js";

export const duration = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parseDuration(value, name);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    });

export const list = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  );

export const flagDefaulting = (fallback: "true" | "false") =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off|)$/i.test(v)) return false;
      ctx.addIssue({ code: "custom", message: `must be true or false (got ${JSON.stringify(v)})` });
      return z.NEVER;
    });
export const flag = flagDefaulting("false");

/** An optional variable where an empty value (`ADMIN_TOKEN=` in a .env file) means unset. */
export const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

export const label = (fallback: string) => z.string().trim().min(1).max(50).default(fallback);
