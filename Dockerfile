# syntax=docker/dockerfile:1
# portal-platform: multi-stage build, runs as the unprivileged `node` user with production dependencies only.
#   docker build -t portal-platform .
#   docker run -p 8080:8080 -v portal-data:/data -e PORTAL_ADMIN_TOKEN=… -e PORTAL_URL=https://portal.example.com portal-platform
# PORTAL_URL is the address people reach (the base of every link it makes); the default, http://127.0.0.1:8080, is
# this machine's `-p 8080:8080` only. (HOST 0.0.0.0 without any PORTAL_URL is refused at start.)
ARG NODE_VERSION=22

# 1. Build: every dependency (Vite, TypeScript), then dist/ (the server, and the admin console in dist/console).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm install, not npm ci: the lock file lacks other platforms' optional binaries of dev tools (see .ci/run).
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build

# 2. Production dependencies only, compiled for this image (better-sqlite3 is native). Every entry the
# lock file lacks belongs to a dev tool, so without devDependencies `npm ci` installs exactly the lock.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm pkg delete devDependencies && npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. Run: no compilers, no sources, no dev tools.
FROM node:${NODE_VERSION}-bookworm-slim
# The database and files' content both in the /data volume, which the node user owns.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PORTAL_URL=http://127.0.0.1:8080 \
    DATABASE_URL=sqlite:/data/portal.db \
    FILES_DIR=/data/files
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data/files && chown -R node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Healthy = ready: the database answers and the process is not draining (GET /readyz; Redis and the outboxes are metrics).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server applies pending migrations on start; SIGTERM drains (SHUTDOWN_GRACE_MS) before closing.
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=256", "--no-allocation-site-pretenuring", "bin/portal.js", "serve"]
