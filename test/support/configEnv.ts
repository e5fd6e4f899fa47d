import { generateKeyPairSync } from "node:crypto";
import { expect } from "vitest";
import { loadConfig } from "../../src/config/env.js";
import { ConfigError } from "../../src/errors.js";

/** A fresh RSA key in PEM, as the App's PRIVATE_KEY. */
export const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});

/** The smallest environment loadConfig accepts, with `over` on top. */
export const minimal = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ APP_ID: "12345", WEBHOOK_SECRET: "s3cret-hook", PRIVATE_KEY: PEM, ...over });

/** The ConfigError loadConfig throws for `env`; fails the test when it throws nothing or something else. */
export function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("loadConfig did not throw");
}
