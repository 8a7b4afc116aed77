import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { PendingRoutes } from '../../components/pending-routes.tsx';

export default function BoardPage() {
  return (
    <Page title="Board">
      <ModuleGate modules={['tasks']}>
        <PendingRoutes what="the task board API (/api/board/*)" issue={4} />
      </ModuleGate>
    </Page>
  );
}
