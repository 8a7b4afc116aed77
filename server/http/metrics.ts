// GET /metrics: Prometheus text format. Behind the same Host/Origin checks and token as /api. The same
// snapshot feeds the OpenTelemetry export when the hub has one (server/telemetry/).
import type { FastifyInstance } from 'fastify';
import type { Hub } from '../hub.ts';
import { type MetricsSnapshot, metricsSnapshot, prometheusText } from '../observability/prometheus.ts';
import type { StreamStats } from './stream.ts';

export function registerMetrics(app: FastifyInstance, hub: Hub, stream: StreamStats): void {
  const snapshot = (): MetricsSnapshot => {
    hub.sessions.checkLifecycles();
    return metricsSnapshot(hub.calls, {
      sessions: hub.sessions.counts(),
      streamClients: stream.clients,
      uptimeSeconds: process.uptime(),
      memory: process.memoryUsage(),
      eventLoopActiveMs: performance.eventLoopUtilization().active,
    });
  };
  const unobserve = hub.telemetry?.observeMetrics(snapshot);
  if (unobserve) app.addHook('onClose', async () => unobserve());
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(prometheusText(snapshot()));
  });
}
