/** A page whose REST routes this hub does not serve yet says so plainly, naming what it waits for. */
export function PendingRoutes({ what, issue }: { what: string; issue: number }) {
  return (
    <div className="notice notice-info" role="status">
      <p>
        <span className="notice-icon" aria-hidden="true">
          ℹ
        </span>{' '}
        <strong>Not available in this build.</strong> This page needs {what} (issue {issue}), which this hub
        does not serve yet.
      </p>
    </div>
  );
}
