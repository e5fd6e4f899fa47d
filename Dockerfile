# Builds and runs the app as a non-root user. Redis is external: set REDIS_URL.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# git for the agent's checkout (the workspace); AGENT_WORKSPACE=off does without it. bubblewrap and
# socat for the agent sandbox, with util-linux's nsenter (README, "The sandbox": the container must allow user namespaces).
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bubblewrap socat util-linux && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 WORKSPACE_ROOT=/home/node/workspaces
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
COPY bin ./bin
COPY templates ./templates
COPY examples ./examples
USER node
EXPOSE 3000
CMD ["node", "dist/main.js"]
