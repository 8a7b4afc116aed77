// A cut answer is never shown as if it were whole: say so, and offer the rest when the hub gave a way
// to fetch it (a cursor or offset).
import type { Meta } from '../lib/api.ts';

interface Props {
  meta: Meta | undefined;
  /** Shown: n of total. */
  shown?: number;
  total?: number;
  onMore?: () => void;
  busy?: boolean;
}

export function hasMore(meta: Meta | undefined): boolean {
  if (!meta) return false;
  return (
    (meta.next_cursor !== undefined && meta.next_cursor !== null) ||
    (meta.next_offset !== undefined && meta.next_offset !== null)
  );
}

export function TruncatedNotice({ meta, shown, total, onMore, busy }: Props) {
  if (!meta || (!meta.truncated && !hasMore(meta))) return null;
  const counts = shown !== undefined && total !== undefined ? ` (${shown} of ${total})` : '';
  return (
    <div className="notice notice-info" role="status">
      <p>
        <span className="notice-icon" aria-hidden="true">
          ✂
        </span>{' '}
        <strong>This is part of the answer{counts}.</strong>{' '}
        {meta.truncated ? 'The hub cut it to fit its budget.' : 'There is more.'}
      </p>
      {onMore && hasMore(meta) ? (
        <button type="button" onClick={onMore} disabled={busy}>
          {busy ? 'Loading…' : 'Load the rest'}
        </button>
      ) : null}
    </div>
  );
}
