import { useState } from 'react';

/** Copies text and says so in words (not only a colour change), for screen readers too. */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // Clipboard access needs a secure context or permission; the text stays selectable.
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button
      type="button"
      className="copy"
      onClick={copy}
      aria-live="polite"
      aria-label={state === 'idle' && name ? `${label} ${name}` : undefined}
    >
      {state === 'copied' ? '✓ Copied' : state === 'failed' ? 'Select and copy it' : label}
    </button>
  );
}
