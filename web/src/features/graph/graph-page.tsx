// The Graph page: the index's state (with reindex) and the doctor, then the explorer.
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { Doctor } from './doctor.tsx';
import { Explorer } from './explorer.tsx';
import { IndexStatus } from './index-status.tsx';

export default function GraphPage() {
  return (
    <Page title="Graph">
      <ModuleGate modules={['graph']}>
        <div className="grid">
          <IndexStatus />
          <Doctor />
        </div>
        <Explorer />
      </ModuleGate>
    </Page>
  );
}
