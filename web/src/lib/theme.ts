// Light and dark themes: follow prefers-color-scheme until the person picks one, then remember it.
import { useCallback, useEffect, useMemo, useState } from 'react';

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

const DARK_QUERY = '(prefers-color-scheme: dark)';

function readProperties<K extends string>(names: readonly K[]): Record<K, string> {
  const style = getComputedStyle(document.documentElement);
  return Object.fromEntries(names.map((n) => [n, style.getPropertyValue(n).trim()])) as Record<K, string>;
}

/**
 * The current theme's values of CSS custom properties (`--text`, `--surface` …), for what paints outside
 * CSS (the graph's canvas). Updated when the person picks a theme or the system's scheme changes.
 */
export function useThemeProperties<K extends string>(names: readonly K[]): Record<K, string> {
  const key = names.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the names' text is the dependency
  const list = useMemo(() => names, [key]);
  const [values, setValues] = useState(() => readProperties(list));
  useEffect(() => {
    const update = () => setValues(readProperties(list));
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = matchMedia(DARK_QUERY);
    media.addEventListener('change', update);
    return () => {
      observer.disconnect();
      media.removeEventListener('change', update);
    };
  }, [list]);
  return values;
}
