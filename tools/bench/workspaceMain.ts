import { parseArgs } from "node:util";
import { benchWorkspace } from "./workspace.js";

/**
 * `npm run bench:workspace`: the workspace's measurement alone (workspace.ts; `npm run bench` ends with it).
 *
 *   npm run bench:workspace -- --files 5000 --commits 200 --samples 7 --issues 7
 */
const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    commits: { type: "string", default: "200" },
    samples: { type: "string", default: "7" },
    issues: { type: "string", default: "7" },
  },
});
benchWorkspace({ files: Number(values.files), commits: Number(values.commits), samples: Number(values.samples), issues: Number(values.issues) }).catch(
  (error: unknown) => {
    console.error(`bench:workspace failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
