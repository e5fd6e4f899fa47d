#!/usr/bin/env bash
# Runs the build, the demo and the end-to-end loop test on each Node line in NODE_MAJORS besides the
# machine's own (which runs the whole suite). Each Node comes from the npm registry as the `node`
# package (it installs the registry's node-<platform>-<arch> binary package; npm's cache is reused),
# into a temporary prefix; nothing is downloaded from anywhere else.
# That Node's bin directory goes first on PATH, so everything started as `node` runs on it: npm's
# scripts, tsc, vitest, the app (`node dist/...`), the demo (`node .tools-build/...`), and what the
# app starts: agents given process.execPath, and `escalate` (bin/escalate: `#!/usr/bin/env node`)
# found on the agent's PATH, which starts with the app's. The sandbox shows that Node's prefix to agents (src/sandbox/hostLayout.ts).
# No `npm rebuild` per Node: the one native addon in the production tree, msgpackr-extract (for
# bullmq), ships N-API prebuilds, which load on any Node line; this checks that it does.
# Usage: scripts/other-nodes.sh [MAJOR...]   (default: NODE_MAJORS). Needs REDIS_URL for the loop test.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Node lines CI runs besides the machine's; test/unit/dev/nodeLines.test.ts keeps these and
# package.json's engines in step.
NODE_MAJORS=(22 24 26)

majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=("${NODE_MAJORS[@]}")
: "${REDIS_URL:?REDIS_URL must point at a Redis for the loop test (.ci/run exports its private one)}"

prefixes=$(mktemp -d "${TMPDIR:-/tmp}/esc-nodes-XXXXXX")
trap 'rm -rf "$prefixes"' EXIT
say() { printf '\nother-nodes: %s\n' "$*"; }
# Runs a step, saying which Node runs it, how long it took, and failing the script when it fails.
step() {
  local label=$1 started=$SECONDS
  shift
  say "Node $(node --version) ($(command -v node)): $label"
  if ! "$@"; then
    say "Node $(node --version): $label FAILED after $((SECONDS - started)) s" >&2
    exit 1
  fi
  say "Node $(node --version): $label passed in $((SECONDS - started)) s"
}

summary=()
for major in "${majors[@]}"; do
  started=$SECONDS
  prefix="$prefixes/node-$major"
  say "installing the node package, Node $major, from the npm registry into $prefix"
  mkdir -p "$prefix"
  # Its preinstall installs the binary package; npm runs a dependency's install script only when allowed.
  echo '{ "private": true, "allowScripts": { "node": true } }' >"$prefix/package.json"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$major"
  bin="$prefix/node_modules/node/bin"
  if ! version=$("$bin/node" --version); then
    echo "other-nodes: the node package for Node $major left no working $bin/node (did its preinstall run?)" >&2
    exit 1
  fi
  if [ "${version%%.*}" != "v$major" ]; then
    echo "other-nodes: the node package for Node $major installed $version" >&2
    exit 1
  fi
  (
    export PATH="$bin:$PATH"
    if [ "$(command -v node)" != "$bin/node" ] || [ "$(node --version)" != "$version" ]; then
      echo "other-nodes: node on PATH is $(command -v node), not $bin/node" >&2
      exit 1
    fi
    step "msgpackr-extract (N-API) loads without a rebuild" node -e 'require("msgpackr-extract"); console.log("msgpackr-extract loaded")'
    # A full compile, not an incremental no-op: tsc itself runs on this Node (the app's build, then
    # the tools', which the demo runs from .tools-build/).
    rm -f dist/.tsbuildinfo .tools-build/.tsbuildinfo
    step "npm run build" npm run build
    step "npm run build:tools" npm run build:tools
    step "npm run demo" npm run demo
    step "the end-to-end loop test" npx vitest run test/e2e/loop.test.ts
  )
  summary+=("Node $version: builds, demo and loop test passed in $((SECONDS - started)) s (install included)")
done
say "done"
printf '  %s\n' "${summary[@]}"
