import { Page } from '../../components/page.tsx';
import { ConnectPanel } from './connect-panel.tsx';
import { HealthPanel } from './health-panel.tsx';
import { HooksPanel } from './hooks-panel.tsx';
import { ModulesPanel } from './modules-panel.tsx';
import { SummaryPanel } from './summary-panel.tsx';

export default function SettingsPage() {
  return (
    <Page title="Health & Settings">
      <div className="grid">
        <HealthPanel />
        <SummaryPanel />
        <ConnectPanel />
        <ModulesPanel />
        <HooksPanel />
      </div>
    </Page>
  );
}
