#!/usr/bin/env node
// Performs the Dockerfile's steps without a Docker daemon, then starts the result and runs its
// HEALTHCHECK. It reads the Dockerfile and .dockerignore, so it checks them as they are:
//   - the build context is a clean copy of what .dockerignore lets through;
//   - each stage is a directory standing in for its root filesystem; COPY copies into it, and RUN
//     runs the stage's npm commands there (npm offline, from the cache the repository's own
//     `npm ci` filled: nothing is fetched); `npm ci` must not build (tsc runs once), and the final
//     stage must hold every production dependency and no dev-only package, and the app only (none
//     of tools/, nor their build);
//   - RUN steps that need the base image's root filesystem (apt-get, install -d) are skipped and
//     listed; ENV paths are mapped into the final stage's directory;
//   - the final stage's ENTRYPOINT and CMD start the app (tini only where the host has it) on
//     loopback with a minimal environment and a throwaway App key, against REDIS_URL or a private
//     redis-server on loopback; the HEALTHCHECK command must pass, then SIGTERM must stop the app
//     with exit code 0.
// Usage: node scripts/image-steps.mjs [WORKDIR]  (WORKDIR is kept for inspection; without it a
// temporary directory is used and removed). Exits 0 when the image's app started and was healthy.
import { spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const keep = process.argv[2] !== undefined;
const work = keep ? resolve(process.argv[2]) : mkdtempSync(join(tmpdir(), "esc-image-"));
const log = (line) => console.log(`image-steps: ${line}`);

class StepError extends Error {}

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function parseDockerfile(text) {
  const out = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    const match = /^(\S+)\s+(.*)$/.exec(full);
    if (!match) throw new StepError(`Dockerfile: cannot read the line ${JSON.stringify(full)}`);
    out.push({ op: match[1].toUpperCase(), args: match[2] });
  }
  return out;
}

/** Whether .dockerignore lets a top-level entry into the build context: the last matching line decides. */
function inContext(name, patterns) {
  let included = true;
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    const glob = (negated ? pattern.slice(1) : pattern).replace(/^\/+|\/+$/g, "");
    if (glob.includes("/")) throw new StepError(`.dockerignore: "${pattern}" names a nested path; this script reads top-level names and ! exceptions only`);
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

function buildContext(dest) {
  const ignore = existsSync(join(repo, ".dockerignore")) ? readFileSync(join(repo, ".dockerignore"), "utf8") : "";
  const patterns = ignore
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  mkdirSync(dest, { recursive: true });
  const names = readdirSync(repo).filter((name) => inContext(name, patterns));
  for (const name of names) cpSync(join(repo, name), join(dest, name), { recursive: true });
  log(`build context: ${names.join(" ")}`);
}

/** The argv of an exec-form (JSON array) instruction; the shell form runs under /bin/sh -c as Docker does. */
function argvOf(args) {
  return args.trim().startsWith("[") ? JSON.parse(args) : ["/bin/sh", "-c", args];
}

function parseEnv(args) {
  const env = {};
  for (const pair of args.trim().split(/\s+/)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s]*)$/.exec(pair);
    if (!match) throw new StepError(`Dockerfile: ENV ${args}: this script reads unquoted KEY=value pairs only`);
    env[match[1]] = match[2];
  }
  return env;
}

function run(argv, options) {
  const result = spawnSync(argv[0], argv.slice(1), { stdio: "inherit", ...options });
  if (result.status !== 0) throw new StepError(`${argv.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

/** Each stage in its own directory under `work`, its root filesystem mapped to `<dir>/root`. */
function performStages(instructions, contextDir) {
  const stages = [];
  let stage;
  const inRoot = (path) => join(stage.root, path.startsWith("/") ? path : join(stage.workdir, path));
  for (const { op, args } of instructions) {
    if (op === "FROM") {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args.trim()) ?? [];
      const root = join(work, `stage-${stages.length}${name ? `-${name}` : ""}`, "root");
      mkdirSync(root, { recursive: true });
      stage = { name, image, root, workdir: "/", env: {}, skipped: [], healthcheck: undefined, entrypoint: [], cmd: [] };
      stages.push(stage);
      log(`FROM ${image}${name ? ` (${name})` : ""}`);
      continue;
    }
    if (!stage) throw new StepError(`Dockerfile: ${op} before FROM`);
    switch (op) {
      case "WORKDIR":
        stage.workdir = resolve(stage.workdir, args.trim());
        mkdirSync(inRoot(stage.workdir), { recursive: true });
        break;
      case "ENV":
        Object.assign(stage.env, parseEnv(args));
        break;
      case "COPY": {
        const words = args.trim().split(/\s+/);
        const from = words[0].startsWith("--from=") ? words.shift().slice("--from=".length) : undefined;
        const dest = words.pop();
        const source = from === undefined ? undefined : stages.find((s, i) => s.name === from || String(i) === from);
        if (from !== undefined && !source) throw new StepError(`Dockerfile: COPY --from=${from} names no earlier stage`);
        for (const src of words) {
          const path = source ? join(source.root, src) : join(contextDir, src);
          if (!existsSync(path)) throw new StepError(`COPY ${src}: not ${source ? `in stage ${from}` : "in the build context (see .dockerignore)"}`);
          const target = !statSync(path).isDirectory() && (dest.endsWith("/") || words.length > 1) ? join(inRoot(dest), basename(src)) : inRoot(dest);
          mkdirSync(dirname(target), { recursive: true });
          cpSync(path, target, { recursive: true });
        }
        break;
      }
      case "RUN":
        if (/^npm\s/.test(args.trim())) {
          log(`RUN ${args} (in ${stage.name ?? "the final stage"})`);
          // npm_config_offline: every package comes from npm's cache, as the repository's `npm ci` left it.
          const env = { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), npm_config_offline: "true", ...stage.env };
          if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
          run(argvOf(args), { cwd: inRoot(stage.workdir), env });
          if (/\bnpm ci\b/.test(args) && existsSync(inRoot(join(stage.workdir, "dist")))) {
            throw new StepError(`RUN ${args} built dist/: the package's prepare script ran tsc, which \`npm run build\` runs again; keep --ignore-scripts`);
          }
        } else {
          stage.skipped.push(args);
        }
        break;
      case "HEALTHCHECK": {
        const match = /^((?:--\S+\s+)*)CMD\s+(.*)$/.exec(args.trim());
        if (!match) throw new StepError(`Dockerfile: HEALTHCHECK ${args}: expected [options] CMD command`);
        stage.healthcheck = argvOf(match[2]);
        break;
      }
      case "ENTRYPOINT":
        stage.entrypoint = argvOf(args);
        break;
      case "CMD":
        stage.cmd = argvOf(args);
        break;
      case "USER":
      case "EXPOSE":
      case "LABEL":
        break;
      default:
        throw new StepError(`Dockerfile: ${op} is an instruction this script does not perform; teach scripts/image-steps.mjs about it`);
    }
  }
  if (!stage) throw new StepError("Dockerfile: no FROM");
  return stage;
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The final stage holds the app only: not tools/ (simulator, bench, chaos, playground, demo), nor their build. */
function checkAppOnly(final) {
  const app = join(final.root, final.workdir);
  const toolsOutput = readdirSync(join(repo, "tools")).map((name) => join("dist", name.replace(/\.ts$/, ".js")));
  const found = ["tools", ".tools-build", "dist/dev", ...toolsOutput].filter((path) => existsSync(join(app, path)));
  if (found.length > 0) throw new StepError(`the final stage holds the tools: ${found.join(", ")}`);
  log("the final stage holds the app only: no tools/, nor their build");
}

/** The final stage's node_modules: every production dependency, and no package the lockfile marks dev-only. */
function checkDependencies(final) {
  const modules = join(final.root, final.workdir);
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8"));
  const dev = Object.entries(lock.packages).filter(([path, entry]) => path && entry.dev && existsSync(join(modules, path)));
  if (dev.length > 0)
    throw new StepError(
      `the final stage has dev-only packages: ${dev
        .map(([path]) => path)
        .slice(0, 5)
        .join(", ")}`,
    );
  const missing = Object.keys(lock.packages[""].dependencies ?? {}).filter((name) => !existsSync(join(modules, "node_modules", name)));
  if (missing.length > 0) throw new StepError(`the final stage lacks production dependencies: ${missing.join(", ")}`);
  log("the final stage's node_modules has every production dependency and no dev-only package");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** REDIS_URL from the caller, or a private redis-server on loopback with a password and no files. */
async function redisUrl(cleanups) {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  const port = await freePort();
  const password = randomBytes(16).toString("hex");
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--requirepass", password], {
    stdio: "ignore",
  });
  cleanups.push(() => server.kill("SIGTERM"));
  for (let i = 0; i < 100; i++) {
    if (spawnSync("redis-cli", ["-p", String(port), "--no-auth-warning", "-a", password, "ping"], { encoding: "utf8" }).stdout?.trim() === "PONG")
      return `redis://:${password}@127.0.0.1:${port}`;
    await sleep(100);
  }
  throw new StepError(`redis-server did not answer on 127.0.0.1:${port}; is Debian's redis-server installed?`);
}

/** A loopback stand-in for GitHub that answers 404 to everything: the app's start-up calls fail at once, without retries. */
async function noGitHub(cleanups) {
  const server = createHttpServer((_req, res) => res.writeHead(404, { "content-type": "application/json" }).end('{"message":"image-steps: no GitHub here"}'));
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  cleanups.push(() => server.close());
  return `127.0.0.1:${server.address().port}`;
}

/** The host path for a path in the final stage's filesystem, and the directory made for it. */
function mapPath(root, value) {
  if (!value.startsWith("/")) return value;
  const mapped = join(root, value);
  mkdirSync(mapped, { recursive: true });
  return mapped;
}

async function startAndCheck(final, cleanups) {
  const port = await freePort();
  const env = { PATH: process.env.PATH };
  for (const [key, value] of Object.entries(final.env)) env[key] = mapPath(final.root, value);
  Object.assign(env, {
    HOME: mapPath(final.root, "/home/node"),
    // Loopback only, on a free port; a GitHub App that exists nowhere, with a GitHub that knows nothing.
    HOST: "127.0.0.1",
    PORT: String(port),
    APP_ID: "1",
    PRIVATE_KEY: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }),
    WEBHOOK_SECRET: randomBytes(16).toString("hex"),
    GHE_HOST: await noGitHub(cleanups),
    GHE_PROTOCOL: "http",
    RECONCILE_INTERVAL: "off",
    REDIS_URL: await redisUrl(cleanups),
    REDIS_PREFIX: `image-steps-${process.pid}`,
  });
  let argv = [...final.entrypoint, ...final.cmd];
  if (final.entrypoint.length > 0 && !existsSync(final.entrypoint[0])) {
    log(`${final.entrypoint[0]} is not on this host: starting ${final.cmd.join(" ")} without it`);
    argv = final.cmd;
  } else if (final.entrypoint.length > 0) {
    // Here tini is not PID 1: as a subreaper it still adopts and reaps the orphans of agent process trees.
    env.TINI_SUBREAPER = "1";
  }
  const cwd = join(final.root, final.workdir);
  log(`starting ${argv.join(" ")} in ${cwd} on 127.0.0.1:${port}`);
  const app = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
  const exited = new Promise((done) => app.once("exit", (code, signal) => done({ code, signal })));
  let running = true;
  void exited.then(() => (running = false));
  cleanups.push(() => running && app.kill("SIGKILL"));

  if (!final.healthcheck) throw new StepError("Dockerfile: the final stage has no HEALTHCHECK");
  const deadline = Date.now() + 60_000;
  let healthy = false;
  while (!healthy && running && Date.now() < deadline) {
    healthy = spawnSync(final.healthcheck[0], final.healthcheck.slice(1), { cwd, env, timeout: 10_000 }).status === 0;
    if (!healthy) await sleep(250);
  }
  if (!healthy)
    throw new StepError(running ? "the HEALTHCHECK did not pass within 60 s" : `the app exited before its HEALTHCHECK passed: ${JSON.stringify(await exited)}`);
  log(`HEALTHCHECK passed: /healthz answered 200 on 127.0.0.1:${port}`);

  app.kill("SIGTERM");
  const timer = setTimeout(() => app.kill("SIGKILL"), 30_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  if (code !== 0) throw new StepError(`SIGTERM: the app exited with ${code ?? signal}, not 0`);
  log("SIGTERM: the app stopped with exit code 0");
}

const cleanups = [];
try {
  const contextDir = join(work, "context");
  buildContext(contextDir);
  // Docker reads the Dockerfile beside the context, not from it.
  const final = performStages(parseDockerfile(readFileSync(join(repo, "Dockerfile"), "utf8")), contextDir);
  for (const step of final.skipped) log(`skipped (needs the base image's root filesystem): RUN ${step}`);
  checkDependencies(final);
  checkAppOnly(final);
  await startAndCheck(final, cleanups);
  log(`the image's steps passed${keep ? `; its stages are in ${work}` : ""}`);
} catch (error) {
  console.error(`image-steps: ${error instanceof StepError ? error.message : error.stack}`);
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) cleanup();
  if (!keep) rmSync(work, { recursive: true, force: true });
}
