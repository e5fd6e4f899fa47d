import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";

/**
 * The production image without a Docker daemon: scripts/image-steps.mjs performs the Dockerfile's
 * steps on a clean copy of the build context (npm offline, from the cache the repository's own
 * `npm ci` filled), starts the final stage's CMD on loopback against the suite's Redis and runs
 * its HEALTHCHECK. What needs the base image (apt-get, the node user) is linted in
 * test/unit/dev/dockerImage.test.ts.
 */
describe("the production image's steps", () => {
  const work = mkdtempSync(join(tmpdir(), "esc-image-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("build once from a context without node_modules or secrets, keep only production dependencies, and start healthy", async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
      const child = spawn(process.execPath, [join(projectRoot, "scripts/image-steps.mjs"), work], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL: inject("redisUrl") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      child.once("exit", (code) => done({ code, output }));
    });
    expect(code, output).toBe(0);
    expect(output).toContain("HEALTHCHECK passed: /healthz answered 200");
    expect(output).toContain("SIGTERM: the app stopped with exit code 0");
    // tsc ran once: npm ci's `prepare` did not build before `npm run build` did.
    expect(output.match(/> tsc /g)).toHaveLength(1);

    const context = readdirSync(join(work, "context"));
    expect(context).toContain("src");
    for (const name of ["node_modules", "dist", "data", ".env", ".git", "test"]) expect(context).not.toContain(name);

    const app = join(work, readdirSync(work).find((d) => /^stage-\d+$/.test(d))!, "root/app");
    expect(existsSync(join(app, "dist/main.js"))).toBe(true);
    expect(existsSync(join(app, "node_modules/probot"))).toBe(true);
    for (const dev of ["typescript", "vitest", "nock"]) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    expect(existsSync(join(app, "src"))).toBe(false);
  }, 300_000);
});
