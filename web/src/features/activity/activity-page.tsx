import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { PendingRoutes } from '../../components/pending-routes.tsx';

export default function ActivityPage() {
  return (
    <Page title="Activity">
      <ModuleGate modules={['observability']}>
        <PendingRoutes
          what="the observability API and live stream (/api/stream/events, /api/sessions/active)"
          issue={8}
        />
      </ModuleGate>
    </Page>
  );
}
