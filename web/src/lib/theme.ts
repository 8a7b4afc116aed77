// Light and dark themes: follow prefers-color-scheme until the person picks one, then remember it.
import { useCallback, useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'cos-hub-theme';

function stored(): ThemeChoice {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

function apply(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

/** Call before the first render so the page never flashes the wrong theme. */
export function applyStoredTheme(): void {
  apply(stored());
}

export function useTheme(): { choice: ThemeChoice; next: () => void } {
  const [choice, setChoice] = useState<ThemeChoice>(stored);
  useEffect(() => {
    apply(choice);
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  }, [choice]);
  const next = useCallback(
    () => setChoice((c) => (c === 'system' ? 'light' : c === 'light' ? 'dark' : 'system')),
    [],
  );
  return { choice, next };
}
