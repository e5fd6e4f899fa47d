import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

/** The package root, whether running from src/ (tests) or dist/ (built). */
export const projectRoot = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
