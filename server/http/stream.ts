// GET /api/stream/events: the live stream (Server-Sent Events) of the hub's event bus. A client that
// reconnects with Last-Event-ID gets what it missed from the bus's bounded buffer, or `resync` when the
// gap is too old. A slow consumer never holds the hub back: when its unsent bytes pass a cap it gets a
// final `dropped` event and is disconnected, and every disconnect frees its listener and timers.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HubEvent } from '../events/bus.ts';
import type { Hub } from '../hub.ts';
import { projectOfRequest } from '../projects/hubs.ts';
import { ERROR_RESPONSES } from './schemas.ts';

export const HEARTBEAT_MS = 15_000;
/** Unsent bytes a client may have queued before it is dropped. */
export const MAX_BUFFERED_BYTES = 1 << 20;

function frame(name: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  const raw =
    (Array.isArray(header) ? header[0] : header) ??
    (request.query as { last_event_id?: string }).last_event_id;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export interface StreamStats {
  clients: number;
  dropped: number;
}

export function registerStream(app: FastifyInstance, hub: Hub, heartbeatMs = HEARTBEAT_MS): StreamStats {
  const stats: StreamStats = { clients: 0, dropped: 0 };
  const clients = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const close of [...clients]) close();
  });

  app.get(
    '/api/stream/events',
    {
      // The stream is hijacked (no serializer ever runs) and its one query value is read defensively:
      // without these, Fastify builds an Ajv instance and a serializer for this route alone at start-up.
      validatorCompiler: () => () => true,
      serializerCompiler: () => JSON.stringify,
      schema: {
        operationId: 'streamEvents',
        tags: ['stream'],
        summary: 'Live events (Server-Sent Events)',
        description:
          'Events: connected, heartbeat (every 15 s), task-updated, presence-updated, tool-called, index-progress, module-changed, log-warning; resync when Last-Event-ID is older than the buffer; dropped before a slow client is disconnected. Each bus event carries its id.',
        querystring: {
          type: 'object',
          properties: {
            last_event_id: {
              type: 'string',
              description: 'for clients that cannot set the Last-Event-ID header',
            },
          },
        },
        response: {
          ...ERROR_RESPONSES,
          200: {
            description: 'an event stream',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    (request, reply) => {
      const { events } = projectOfRequest(request.raw)?.hub ?? hub;
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      let open = true;
      const close = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        clearInterval(heartbeat);
        clients.delete(close);
        stats.clients--;
        if (!res.writableEnded) res.end();
      };
      const send = (text: string): void => {
        if (!open) return;
        if (res.writableLength > MAX_BUFFERED_BYTES) {
          stats.dropped++;
          res.write(
            frame('dropped', { reason: 'the client fell too far behind; reconnect with Last-Event-ID' }),
          );
          close();
          // A client that never reads would keep the socket; give the final event a moment, then cut it.
          setTimeout(() => res.destroy(), 2_000).unref();
          return;
        }
        res.write(text);
      };

      stats.clients++;
      clients.add(close);
      res.write('retry: 3000\n\n');
      send(frame('connected', { last_id: events.lastId, heartbeat_ms: heartbeatMs }));
      const after = lastEventId(request);
      if (after !== undefined) {
        const missed = events.since(after);
        if (missed === null)
          send(
            frame('resync', {
              reason: 'missed events are no longer buffered; reload the page state',
              last_id: events.lastId,
            }),
          );
        else for (const e of missed) send(frame(e.type, e.data, e.id));
      }
      const unsubscribe = events.subscribe((e: HubEvent) => send(frame(e.type, e.data, e.id)));
      const heartbeat = setInterval(() => send(frame('heartbeat', { at: Date.now() })), heartbeatMs);
      heartbeat.unref();
      request.raw.on('close', close);
      res.on('error', close);
    },
  );
  return stats;
}
