// GET /metrics: Prometheus text format. Behind the same Host/Origin checks and token as /api.
import type { FastifyInstance } from 'fastify';
import type { Hub } from '../hub.ts';
import { prometheusText } from '../observability/prometheus.ts';
import type { StreamStats } from './stream.ts';

export function registerMetrics(app: FastifyInstance, hub: Hub, stream: StreamStats): void {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    hub.sessions.checkLifecycles();
    const text = prometheusText(hub.calls, {
      sessions: hub.sessions.counts(),
      streamClients: stream.clients,
      uptimeSeconds: process.uptime(),
      memory: process.memoryUsage(),
      eventLoopActiveMs: performance.eventLoopUtilization().active,
    });
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
  });
}
