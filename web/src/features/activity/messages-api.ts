// The messages the Activity page reads and sends: the people's own inbox ("human": notifications), every
// thread with its replies, and a message from a person to an agent or to every live agent.
import { api, call } from '../../lib/api.ts';
import type { components, paths } from '../../lib/api-types.ts';

export type SentMessage = components['schemas']['SentMessage'];
export type InboxMessage = components['schemas']['InboxMessage'];
export type MessageThread = components['schemas']['MessageThread'];
export type SendBody = NonNullable<
  paths['/api/messages']['post']['requestBody']
>['content']['application/json'];

/** Who the page speaks for: the people watching, as the hub names them. */
export const HUMAN = 'human';

export function notifications(signal?: AbortSignal) {
  return call(
    api.GET('/api/messages/inbox', { params: { query: { agent_session: HUMAN, limit: 50 } }, signal }),
  );
}

export function threads(signal?: AbortSignal) {
  return call(api.GET('/api/messages/threads', { params: { query: { limit: 20 } }, signal }));
}

/** Sent as the page's person: no agent_session over REST means "human". */
export function sendMessage(body: SendBody) {
  return call(api.POST('/api/messages', { body }));
}

export function markRead(ids: string[]) {
  return call(api.POST('/api/messages/ack', { body: { agent_session: HUMAN, ids } }));
}
