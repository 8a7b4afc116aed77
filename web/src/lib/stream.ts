// One EventSource for the whole page, shared by every subscriber: the hub's live stream
// (GET /api/stream/events). EventSource reconnects by itself and sends Last-Event-ID, so the hub replays
// what was missed; when the gap is too old the hub says `resync` and every subscriber reloads.
//
// Event payloads are not described by the OpenAPI document (it types them `unknown`), so pages use
// events as signals and re-read typed state through the REST client; `field()` narrows the few values
// a page reads straight from an event.
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { components } from './api-types.ts';
import { PROJECT_BASE } from './project.ts';

export type HubEventType = components['schemas']['HubEvent']['type'];
export type StreamStatus = 'connecting' | 'live' | 'reconnecting';

export interface StreamEvent {
  type: HubEventType | 'resync';
  id: number | undefined;
  data: unknown;
}

const EVENT_TYPES = [
  'task-updated',
  'presence-updated',
  'tool-called',
  'index-progress',
  'module-changed',
  'log-warning',
  'memory-updated',
  'agent-event',
  'agent-conflict',
  'reservation-updated',
  'message-created',
  'message-acked',
  'message-delivered',
  'usage-recorded',
] as const satisfies readonly HubEventType[];

type Listener = (event: StreamEvent) => void;
const listeners = new Set<Listener>();
const statusListeners = new Set<() => void>();
let source: EventSource | undefined;
let status: StreamStatus = 'connecting';

function setStatus(next: StreamStatus): void {
  if (next === status) return;
  status = next;
  for (const l of statusListeners) l();
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function dispatch(type: StreamEvent['type'], message: MessageEvent<string>): void {
  const id = message.lastEventId ? Number(message.lastEventId) : undefined;
  const event: StreamEvent = { type, id, data: parse(message.data) };
  for (const l of listeners) l(event);
}

function connect(): void {
  if (source || typeof EventSource === 'undefined') return;
  source = new EventSource(`${PROJECT_BASE}/api/stream/events`);
  source.addEventListener('connected', () => setStatus('live'));
  source.addEventListener('open', () => setStatus('live'));
  source.addEventListener('error', () => setStatus('reconnecting'));
  for (const type of EVENT_TYPES) source.addEventListener(type, (m) => dispatch(type, m));
  source.addEventListener('resync', (m) => dispatch('resync', m));
  // The hub cut us for falling behind: start over (the browser would otherwise wait for its retry).
  source.addEventListener('dropped', () => {
    source?.close();
    source = undefined;
    setStatus('reconnecting');
    setTimeout(connect, 1000);
  });
}

export function subscribe(listener: Listener): () => void {
  connect();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls `handler` for each event of the given types (and on resync); the latest handler is used. */
export function useHubEvents(
  types: readonly StreamEvent['type'][],
  handler: (event: StreamEvent) => void,
): void {
  const ref = useRef(handler);
  ref.current = handler;
  const key = types.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `types`
  useEffect(
    () =>
      subscribe((event) => {
        if (event.type === 'resync' || types.includes(event.type)) ref.current(event);
      }),
    [key],
  );
}

export function useStreamStatus(): StreamStatus {
  return useSyncExternalStore(
    (l) => {
      connect();
      statusListeners.add(l);
      return () => statusListeners.delete(l);
    },
    () => status,
  );
}

/** A field of an event payload, if it has the expected primitive type. */
export function field(data: unknown, name: string, type: 'string'): string | undefined;
export function field(data: unknown, name: string, type: 'number'): number | undefined;
export function field(data: unknown, name: string, type: 'boolean'): boolean | undefined;
export function field(data: unknown, name: string, type: 'string' | 'number' | 'boolean'): unknown {
  if (data === null || typeof data !== 'object' || !(name in data)) return undefined;
  const value: unknown = Reflect.get(data, name);
  return typeof value === type ? value : undefined;
}

/**
 * Runs `fn` at most once per `ms`, trailing: a burst of events becomes one reload instead of hundreds.
 */
export function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
}
