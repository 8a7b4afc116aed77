import { Page } from '../../components/page.tsx';
import { PendingRoutes } from '../../components/pending-routes.tsx';

export default function SearchPage() {
  return (
    <Page title="Search">
      <PendingRoutes what="the search API (/api/search/*)" issue={7} />
    </Page>
  );
}
