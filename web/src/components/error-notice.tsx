// Every error envelope the page meets becomes a sentence a person can act on: what happened, the hub's
// own message, and the one thing to do about it (retry, or enable the module).
import { useState } from 'react';
import { type ApiError, type ModuleId, moduleNamedIn } from '../lib/api.ts';
import { announceModulesChanged, setModule } from '../lib/modules.ts';

const LEAD: Record<ApiError['category'], string> = {
  transient: 'The hub had a temporary problem.',
  validation: 'The hub did not accept that request.',
  permission: 'The hub refused that request.',
  not_found: 'That was not found.',
  unavailable: 'Something this needs is not available right now.',
  internal: 'Something went wrong inside the hub.',
  module_disabled: 'That part of the hub is turned off.',
  unauthorized: 'The hub needs its access token for this.',
};

/** The hub's messages start lower-case and carry no full stop; show them as a sentence. */
export function sentence(message: string): string {
  const text = message.trim();
  if (!text) return '';
  const capital = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

interface Props {
  error: ApiError;
  /** Shown as a Retry button when the error is retryable. */
  onRetry?: () => void;
  /** The module a page belongs to, when the message does not name one. */
  module?: ModuleId;
  /** Heading-free inline variant for forms and drawers. */
  compact?: boolean;
}

export function ErrorNotice({ error, onRetry, module, compact }: Props) {
  if (error.category === 'module_disabled') {
    const id = moduleNamedIn(error.message) ?? module;
    if (id) return <ModuleDisabledNotice module={id} detail={error.message} />;
  }
  return (
    <div className={compact ? 'notice notice-error compact' : 'notice notice-error'} role="alert">
      <p>
        <span className="notice-icon" aria-hidden="true">
          ⚠
        </span>{' '}
        <strong>{LEAD[error.category]}</strong> {sentence(error.message)}
      </p>
      {error.retryable && onRetry ? (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function ModuleDisabledNotice({ module, detail }: { module: ModuleId; detail?: string }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError | undefined>();
  const enable = async () => {
    setBusy(true);
    setFailure(undefined);
    const outcome = await setModule(module, true);
    setBusy(false);
    if (outcome.ok) announceModulesChanged();
    else setFailure(outcome.error);
  };
  return (
    <div className="notice notice-warning" role="alert" data-module-disabled={module}>
      <p>
        <span className="notice-icon" aria-hidden="true">
          ⚠
        </span>{' '}
        <strong>The “{module}” module is turned off for this project.</strong> Its tools answer
        <code> module_disabled</code> until it is enabled (here, or with{' '}
        <code>cos module enable {module}</code>
        ).
      </p>
      {detail ? <p className="muted">{sentence(detail)}</p> : null}
      <button type="button" onClick={enable} disabled={busy}>
        {busy ? 'Enabling…' : `Enable ${module}`}
      </button>
      {failure ? <ErrorNotice error={failure} compact /> : null}
    </div>
  );
}
