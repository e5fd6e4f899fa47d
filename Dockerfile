# The app on Node 26 (the Active LTS line since 2026-10; CI runs it too: scripts/other-nodes.sh), on
# Debian trixie (Node 26's images are built on trixie) so apt has the sandbox's tools, run as the non-root `node` user under tini. Redis is
# external (REDIS_URL); compose.yaml starts one.
# Without a Docker daemon, scripts/image-steps.mjs performs these steps and starts the result.
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# --ignore-scripts: the package's `prepare` would run tsc here, before `npm run build` runs it again.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
# The app only: tsconfig.build.json compiles src/; the simulator, bench and chaos rigs are in tools/,
# outside the build context, with a build of their own (tools/tsconfig.json).
RUN npm run build

FROM node:26-trixie-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:26-trixie-slim
# tini is PID 1: it reaps the orphans of agent process trees and passes signals to node. git for
# the agent's checkout (the workspace); AGENT_WORKSPACE=off does without it. bubblewrap and socat
# for the agent sandbox, with util-linux's nsenter (README, "The sandbox": the container must
# allow user namespaces).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini git ca-certificates bubblewrap socat util-linux \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/home/node/data WORKSPACE_ROOT=/home/node/workspaces
# Owned by node so volumes mounted here start writable (the egress proxy's socket lives in DATA_DIR).
RUN install -d -o node -g node /home/node/data /home/node/workspaces
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
COPY bin ./bin
COPY templates ./templates
COPY examples ./examples
USER node
EXPOSE 3000
# No curl in a slim image: node asks /healthz (200 when Redis and every queue answer).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Not `npm start`: its prestart would run tsc again at every start.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
