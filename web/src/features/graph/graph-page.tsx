import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { PendingRoutes } from '../../components/pending-routes.tsx';

export default function GraphPage() {
  return (
    <Page title="Graph">
      <ModuleGate modules={['graph']}>
        <PendingRoutes what="the code graph API (/api/graph/*)" issue={5} />
      </ModuleGate>
    </Page>
  );
}
