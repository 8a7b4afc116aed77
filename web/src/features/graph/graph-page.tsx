// The Graph page. The interactive explorer (GraphCanvas: sigma + graphology, ForceAtlas2 in a worker)
// waits for the graph routes (/api/graph/*); the index's state is shown from the hub summary meanwhile.
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { PendingRoutes } from '../../components/pending-routes.tsx';
import { IndexStatus } from './index-status.tsx';

export default function GraphPage() {
  return (
    <Page title="Graph">
      <ModuleGate modules={['graph']}>
        <div className="grid">
          <IndexStatus />
          <section className="card" aria-labelledby="explorer-title">
            <h2 id="explorer-title">Explorer</h2>
            <PendingRoutes
              what="the code graph API (/api/graph/*: search, context, export, doctor)"
              issue={6}
            />
          </section>
        </div>
      </ModuleGate>
    </Page>
  );
}
