// What the observability tools reach through ctx.services.observability. The recorder and the session
// tracker are part of every hub (the adapters feed them); this only exposes them to handlers.
import type { CallRecorder } from './calls.ts';
import type { SessionTracker } from './sessions.ts';

export interface ObservabilityService {
  calls: CallRecorder;
  sessions: SessionTracker;
}

declare module '../hub-services.ts' {
  interface HubServices {
    observability: ObservabilityService;
  }
}
