import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { projectRoot } from "../../../src/config/projectRoot.js";

/**
 * The Dockerfile, .dockerignore, compose.yaml and .env.example read as a linter would, without a
 * Docker daemon (none runs on these machines; scripts/image-steps.mjs performs the steps, see
 * test/e2e/imageSteps.test.ts).
 */
const read = (name: string) => readFileSync(join(projectRoot, name), "utf8");

interface Instruction {
  op: string;
  args: string;
}

/** Instructions per stage, continuation lines joined, comments dropped. */
function stages(text: string): Instruction[][] {
  const out: Instruction[][] = [];
  for (const line of text.replace(/\\\n/g, " ").split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(trimmed) ?? [];
    expect(op, `unreadable line: ${trimmed}`).toBeDefined();
    if (op!.toUpperCase() === "FROM") out.push([]);
    expect(out.length, `${op} before FROM`).toBeGreaterThan(0);
    out.at(-1)!.push({ op: op!.toUpperCase(), args: args!.replace(/\s+/g, " ") });
  }
  return out;
}

/** Docker's rule for top-level names: the last matching line of .dockerignore decides. */
function inContext(name: string, ignore: string): boolean {
  let included = true;
  for (const line of ignore
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))) {
    const negated = line.startsWith("!");
    const glob = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, "");
    const regex = new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".")}$`,
    );
    if (regex.test(name)) included = negated;
  }
  return included;
}

describe("Dockerfile", () => {
  const all = stages(read("Dockerfile"));
  const final = all.at(-1)!;
  const ops = (stage: Instruction[], op: string) => stage.filter((i) => i.op === op).map((i) => i.args);
  const runs = all.flatMap((s) => ops(s, "RUN"));
  const instructions = all
    .flat()
    .map((i) => `${i.op} ${i.args}`)
    .join("\n");

  it("builds every stage on Node 26 (the Active LTS) on Debian trixie, where apt has the sandbox's tools", () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const stage of all) expect(ops(stage, "FROM")[0]).toMatch(/^node:26-trixie(-slim)?( AS \S+)?$/i);
  });

  it("runs tsc once: npm ci skips the `prepare` build, and nothing runs npm start or a second build", () => {
    const builds = runs.join("\n").match(/npm run build|\btsc\b/g) ?? [];
    expect(builds).toEqual(["npm run build"]);
    const installs = runs.filter((r) => /\bnpm (ci|install)\b/.test(r));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install).toContain("--ignore-scripts");
    expect(instructions).not.toMatch(/npm (run )?start/);
  });

  it("puts only production dependencies in the final stage", () => {
    const copies = ops(final, "COPY");
    const modules = copies.find((c) => c.includes("node_modules"));
    const from = /--from=(\S+)/.exec(modules ?? "")?.[1];
    expect(from, "node_modules comes from another stage").toBeDefined();
    const source = all.find((s) => new RegExp(` AS ${from}$`, "i").test(ops(s, "FROM")[0]!));
    expect(ops(source!, "RUN").some((r) => /npm ci .*--omit=dev/.test(r))).toBe(true);
    expect(ops(final, "RUN").some((r) => /\bnpm\b/.test(r))).toBe(false);
  });

  it("installs tini, git, bubblewrap, socat and util-linux (nsenter) from apt, and downloads nothing else", () => {
    const apt = ops(final, "RUN").find((r) => r.includes("apt-get install"));
    for (const pkg of ["tini", "git", "ca-certificates", "bubblewrap", "socat", "util-linux"]) expect(apt).toMatch(new RegExp(`\\s${pkg}(\\s|$)`));
    expect(apt).toContain("--no-install-recommends");
    expect(apt).toContain("rm -rf /var/lib/apt/lists/*");
    expect(instructions).not.toMatch(/\b(curl|wget)\b|^ADD /m);
  });

  it("starts node dist/main.js under tini as PID 1, as the non-root node user", () => {
    expect(JSON.parse(ops(final, "ENTRYPOINT")[0]!)).toEqual(["/usr/bin/tini", "--"]);
    expect(JSON.parse(ops(final, "CMD")[0]!)).toEqual(["node", "dist/main.js"]);
    const users = ops(final, "USER");
    expect(users).toEqual(["node"]);
    expect(final.findIndex((i) => i.op === "USER")).toBeLessThan(final.findIndex((i) => i.op === "CMD"));
  });

  it("checks health with node on /healthz at $PORT, and keeps DATA_DIR and WORKSPACE_ROOT where node may write", () => {
    const [healthcheck] = ops(final, "HEALTHCHECK");
    const [, options, command] = /^((?:--\S+ )*)CMD (.*)$/.exec(healthcheck ?? "") ?? [];
    expect(options).toMatch(/--start-period=\d+s/);
    const argv = JSON.parse(command!) as string[];
    expect(argv.slice(0, 2)).toEqual(["node", "-e"]);
    expect(argv[2]).toContain("process.env.PORT");
    expect(argv[2]).toContain("/healthz");
    const env = ops(final, "ENV").join(" ");
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bDATA_DIR=\/home\/node\/data\b/);
    expect(env).toMatch(/\bWORKSPACE_ROOT=\/home\/node\/workspaces\b/);
    expect(ops(final, "RUN").some((r) => r.includes("install -d -o node -g node /home/node/data /home/node/workspaces"))).toBe(true);
  });
});

describe(".dockerignore", () => {
  const ignore = read(".dockerignore");

  it("keeps dependencies, build output, data, secrets, git, test output and the tools out of the build context", () => {
    for (const name of [
      "node_modules",
      "dist",
      "data",
      ".env",
      ".env.local",
      "app.pem",
      ".git",
      "coverage",
      "test-artifacts",
      "test",
      "tools",
      ".tools-build",
      "Dockerfile",
      "compose.yaml",
    ]) {
      expect(inContext(name, ignore), name).toBe(false);
    }
  });

  it("lets in everything the Dockerfile copies from the context", () => {
    const sources = stages(read("Dockerfile"))
      .flat()
      .filter((i) => i.op === "COPY" && !i.args.startsWith("--from="))
      .flatMap((i) => i.args.split(" ").slice(0, -1));
    expect(sources).toContain("src");
    for (const source of sources) expect(inContext(source.split("/")[0]!, ignore), source).toBe(true);
  });
});

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml")) as {
    services: Record<
      string,
      {
        build?: string;
        image?: string;
        command?: string[];
        env_file?: string;
        profiles?: string[];
        ports?: string[];
        environment?: Record<string, string>;
        volumes?: string[];
        security_opt?: string[];
        depends_on?: Record<string, { condition: string }>;
        healthcheck?: { test: string[] };
        stop_grace_period?: string;
      }
    >;
    volumes: Record<string, unknown>;
  };
  const { app, runner, redis } = compose.services;

  it("starts Redis append-only with a password from .env, persisted in a volume, checked before the app starts", () => {
    expect(redis!.image).toMatch(/^redis:/);
    expect(redis!.command!.join(" ")).toMatch(/--appendonly yes/);
    expect(redis!.command!.join(" ")).toMatch(/--requirepass \$\{REDIS_PASSWORD:\?[^}]+\}/);
    expect(redis!.volumes).toContain("redis-data:/data");
    expect(redis!.healthcheck!.test).toEqual(["CMD", "redis-cli", "ping"]);
    expect(redis!.environment!.REDISCLI_AUTH).toMatch(/^\$\{REDIS_PASSWORD/);
    expect(app!.depends_on!.redis!.condition).toBe("service_healthy");
  });

  it("builds the app from this Dockerfile, configured from .env with Redis's password in REDIS_URL", () => {
    expect(app!.build).toBe(".");
    expect(app!.env_file).toBe(".env");
    expect(app!.environment!.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD[^}]*\}@redis:6379$/);
    expect(app!.environment!.PORT).toBe("3000");
    expect(app!.environment!.HOST).toBe("0.0.0.0");
  });

  it("persists DATA_DIR and WORKSPACE_ROOT, lets the sandbox make user namespaces, and outwaits SHUTDOWN_GRACE", () => {
    expect(app!.volumes).toEqual(expect.arrayContaining(["data:/home/node/data", "workspaces:/home/node/workspaces"]));
    expect(Object.keys(compose.volumes).sort()).toEqual(["data", "redis-data", "workspaces"]);
    expect(app!.security_opt).toEqual(["seccomp=unconfined", "apparmor=unconfined"]);
    expect(Number(/^(\d+)s$/.exec(app!.stop_grace_period!)?.[1])).toBeGreaterThan(20);
  });

  it("adds runners on request (a profile, scaled), each with the app's image, settings and sandbox, no port and no shared disk", () => {
    expect(runner!.profiles).toEqual(["runners"]);
    expect(runner!.image).toBe(app!.image);
    expect(runner!.env_file).toBe(".env");
    expect(runner!.environment).toEqual({ ROLE: "runner", REDIS_URL: app!.environment!.REDIS_URL });
    expect(runner!.ports).toBeUndefined();
    expect(runner!.volumes).toBeUndefined();
    expect(runner!.security_opt).toEqual(app!.security_opt);
    expect(runner!.stop_grace_period).toBe(app!.stop_grace_period);
  });

  it("names in .env.example every variable it interpolates and every variable the app requires", () => {
    const example = read(".env.example");
    const defined = new Set([...example.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    const interpolated = new Set([...read("compose.yaml").matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]));
    for (const name of [...interpolated, "APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET", "AGENT_COMMAND"]) expect(defined, name).toContain(name);
  });
});
