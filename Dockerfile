# One image for every process of the service (docker-compose.yml builds it once, as
# docs-platform:${TAG:-local}, and runs it three ways):
#   API (default):  node dist/apps/api/src/main.js         port 8080 (PORT)
#   projector:      node dist/apps/projector/src/main.js   port 8081 (PROJECTOR_PORT): probes and /metrics only
#   integrations-worker: node dist/apps/integrations-worker/src/main.js   port 8082 (WORKER_PORT): probes and /metrics only
# Each serves /health/live (the process answers), /health/ready (it can serve) and /health.
# Debian (glibc) rather than Alpine: lmdb and msgpackr ship prebuilt native binaries for glibc.

# ---- build: install everything, compile, then drop the dev dependencies --------------------------
FROM node:22-bookworm-slim AS build
WORKDIR /app
# swagger-ui-dist's install-time analytics stay off.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# npm install, not npm ci: npm writes a lockfile without other platforms' optional packages where the
# registry does not serve them, and npm ci then rejects it; install keeps to the lockfile's versions.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
COPY bench ./bench
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled code and production dependencies only, as the unprivileged `node` user ------
FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# DATA_DIR (./data) for embedded mode (`docker run -v docs-data:/app/data ...`); distributed mode
# keeps everything in KurrentDB and MongoDB and never writes here.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# Liveness of the API: 200 as soon as it listens, so a long replay of the log at start is not taken
# for a failure. The projector and the worker serve theirs on their own ports: set HEALTHCHECK_URL
# (or override the check, as docker-compose.yml does).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL || 'http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/api/src/main.js"]
