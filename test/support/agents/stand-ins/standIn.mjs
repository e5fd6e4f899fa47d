// Stand-ins for real coding agents (test/e2e/recipes.test.ts, test/integration/agent/recipes.test.ts).
// Each asserts nothing: it records in STAND_IN_OUT/<tool>-<repo>-<issue>-round-<n>.json the exact
// argv, environment, working directory, stdin and config files it received, then behaves as the
// real tool would:
//
//   without an answer in its task   edits NOTES.md and src/app.ts, asks through `ask_human` by
//                                   starting the MCP server its config names exactly as the tool
//                                   would (command, args, the environment the tool gives it), and exits 0
//   with one                        writes DONE.md and exits 0
//
// aider has no MCP and runs no command under --yes-always: its stand-in reads the task from
// --message-file and, without an answer, writes the ask file its --read conventions name (refusing,
// as aider does, a git-ignored path) instead of calling ask_human; on an issue titled "[bad ask]",
// an ask file without questions.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** What Codex gives a stdio MCP server from its own environment besides `env_vars` (codex-rs/rmcp-client/src/utils.rs). */
const CODEX_DEFAULT_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"];

const pick = (names) => Object.fromEntries(names.filter((n) => process.env[n] !== undefined).map((n) => [n, process.env[n]]));

/** Claude Code: `--mcp-config FILE`, the `.mcp.json` format; a server without `env` inherits Claude Code's environment. */
function claudeServer(argv, files) {
  const at = argv.indexOf("--mcp-config");
  if (at < 0) return undefined;
  const file = argv[at + 1];
  files[file] = readFileSync(file, "utf8");
  const server = JSON.parse(files[file]).mcpServers.escalation;
  if (!server) return undefined;
  return { command: server.command, args: server.args ?? [], env: { ...process.env, ...server.env } };
}

/**
 * Codex: $CODEX_HOME/config.toml, `[mcp_servers.NAME]` with command, args, env_vars. Reads only
 * the TOML the app writes (tables, comments, `key = <string or array of strings>`) and refuses anything else.
 */
function codexServer(_argv, files) {
  const file = join(process.env.CODEX_HOME ?? join(process.env.HOME, ".codex"), "config.toml");
  if (!existsSync(file)) return undefined;
  files[file] = readFileSync(file, "utf8");
  const tables = {};
  let table;
  for (const line of files[file].split("\n")) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) tables[header[1]] = table = {};
    else {
      const pair = /^([A-Za-z0-9_]+) = (.+)$/.exec(line);
      if (!pair || !table) throw new Error(`codex stand-in: not TOML it understands: ${line}`);
      table[pair[1]] = JSON.parse(pair[2]);
    }
  }
  const server = tables["mcp_servers.escalation"];
  if (!server) return undefined;
  return { command: server.command, args: server.args ?? [], env: { ...pick([...CODEX_DEFAULT_ENV, ...(server.env_vars ?? [])]), ...server.env } };
}

const SERVERS = { claude: claudeServer, codex: codexServer };

const recordFile = (tool) =>
  join(
    process.env.STAND_IN_OUT,
    `${tool}-${process.env.GITHUB_REPOSITORY.replace("/", "-")}-${process.env.ESCALATION_ISSUE}-round-${process.env.ESCALATION_ROUND}.json`,
  );

/** True when the task holds a human's answer: the round after the ask. */
const answered = (task) => task.includes("## Questions asked so far");

function runAider(argv) {
  readFileSync(0); // the app writes the task to stdin too; aider takes it from --message-file
  const value = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const files = {};
  const conventions = value("--read");
  if (conventions) files[conventions] = readFileSync(conventions, "utf8");
  const task = readFileSync(value("--message-file"), "utf8");
  const record = { tool: "aider", argv, env: { ...process.env }, cwd: process.cwd(), task, files };
  writeFileSync(recordFile("aider"), JSON.stringify(record, null, 2));
  // aider's --chat-history-file default, in the repository's root.
  appendFileSync(".aider.chat.history.md", `# aider chat started, round ${process.env.ESCALATION_ROUND}\n`);
  if (answered(task)) {
    writeFileSync("DONE.md", `Finished in round ${process.env.ESCALATION_ROUND}.\n`);
    return;
  }
  writeFileSync("NOTES.md", "Asked which cache to use.\n");
  const ask = /create the file `([^`]+)`/.exec(files[conventions] ?? "")?.[1];
  if (!ask) throw new Error("aider stand-in: the --read conventions name no ask file");
  // aider's base_coder.allowed_to_edit: "Skipping edits to … that matches gitignore spec."
  const ignored = (() => {
    try {
      execFileSync("git", ["check-ignore", "-q", ask]);
      return true;
    } catch {
      return false;
    }
  })();
  if (ignored) {
    console.log(`Skipping edits to ${ask} that matches gitignore spec.`);
    return;
  }
  mkdirSync(dirname(ask), { recursive: true });
  // An issue titled "[bad ask]" gets an ask without questions, as a confused model might write.
  const questions = task.includes("[bad ask]") ? [] : [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"] }];
  writeFileSync(ask, JSON.stringify({ questions }, null, 2));
}

export async function run(tool) {
  const argv = process.argv.slice(2);
  if (tool === "aider") return runAider(argv);
  const task = readFileSync(0, "utf8");
  const files = {};
  const server = SERVERS[tool](argv, files);
  const record = { tool, argv, env: { ...process.env }, cwd: process.cwd(), task, files };
  const save = () => writeFileSync(recordFile(tool), JSON.stringify(record, null, 2));
  save();
  if (answered(task)) {
    writeFileSync("DONE.md", `Finished in round ${process.env.ESCALATION_ROUND}.\n`);
    return;
  }
  writeFileSync("NOTES.md", "Asked which cache to use.\n");
  if (!server) throw new Error(`${tool} stand-in: no ask_human server configured`);
  const client = new Client({ name: `${tool}-stand-in`, version: "0.0.0" });
  await client.connect(new StdioClientTransport({ ...server, stderr: "inherit" }));
  try {
    const result = await client.callTool({
      name: "ask_human",
      arguments: { questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"] }] },
    });
    record.asked = { isError: result.isError === true, text: result.content.map((c) => c.text).join("\n") };
    save();
    if (result.isError) process.exitCode = 1;
  } finally {
    await client.close();
  }
}
