# The credential service as one image: `docker build -t credential-service .` (docs/deploy.md).
# Build stage: every dependency, compiled once; the runtime stage keeps dist/ and production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/var/lib/credentials
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's files belong to root and are read-only for the service; it writes only DATA_DIR
# (the development key file and the embedded PostgreSQL when no DATABASE_URL is set).
RUN mkdir -p /var/lib/credentials && chown node:node /var/lib/credentials
USER node
EXPOSE 4000
# Ready = the database answers and every migration is applied; /healthz would only say the process runs.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains requests in flight (SHUTDOWN_GRACE_MS), then exits 0.
CMD ["node", "dist/src/main.js"]
