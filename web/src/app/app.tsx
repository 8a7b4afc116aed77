import { Component, type ErrorInfo, lazy, type ReactNode, Suspense, useEffect } from 'react';
import { ProjectSwitcher } from '../components/project-switcher.tsx';
import { PresenceSummary } from '../features/activity/presence-summary.tsx';
import { listProjects } from '../features/home/api.ts';
import { Link, navigate, useLocation } from '../lib/router.tsx';
import { useTheme } from '../lib/theme.ts';
import { useQuery } from '../lib/use-query.ts';
import { HOME, ROUTES, routeFor } from './routes.ts';

const THEME_LABEL = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' } as const;

/** A page that throws while rendering shows what broke instead of a blank screen. */
class PageBoundary extends Component<{ children: ReactNode; resetKey: string }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }
  override componentDidCatch(_error: Error, _info: ErrorInfo) {
    // Shown in the page; nothing to report to.
  }
  override render() {
    if (this.state.error) {
      return (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>This page failed to render.</strong> {this.state.error.message}
          </p>
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}

const HomePage = lazy(() => import('../features/home/home-page.tsx'));

/** `/`: the home page when the hub serves more than one project, else the board as always. */
function Home() {
  const query = useQuery('projects', listProjects);
  const count = query.state.value?.data.projects.length;
  const settled = query.state.status !== 'loading';
  useEffect(() => {
    if (settled && (count ?? 0) < 2) navigate(HOME, { replace: true });
  }, [settled, count]);
  return count !== undefined && count >= 2 ? <HomePage /> : null;
}

function useShortcuts() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      const route = ROUTES.find((r) => r.key === event.key.toLowerCase());
      if (route) {
        event.preventDefault();
        navigate(route.path);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  const location = useLocation();
  const theme = useTheme();
  useShortcuts();
  const route = routeFor(location.path);
  const Current = route?.component;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          cos hub
        </Link>
        <ProjectSwitcher />
        <nav aria-label="Pages">
          <ul>
            {ROUTES.map((r) => (
              <li key={r.path}>
                <Link
                  to={r.path}
                  aria-current={route === r ? 'page' : undefined}
                  title={`${r.label} (Alt+${r.key.toUpperCase()})`}
                >
                  {r.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="header-tools">
          <PresenceSummary />
          <button type="button" onClick={theme.next} aria-label={`${THEME_LABEL[theme.choice]}; change`}>
            <span aria-hidden="true">
              {theme.choice === 'dark' ? '☾' : theme.choice === 'light' ? '☀' : '◐'}
            </span>{' '}
            {THEME_LABEL[theme.choice]}
          </button>
        </div>
      </header>
      <main id="main">
        <PageBoundary resetKey={location.path}>
          <Suspense fallback={<p className="muted">Loading…</p>}>
            {Current ? (
              <Current />
            ) : location.path === '/' ? (
              <Home />
            ) : (
              <div className="notice notice-error" role="alert">
                <p>
                  <strong>No page at {location.path}.</strong> <Link to={HOME}>Go to the board</Link>.
                </p>
              </div>
            )}
          </Suspense>
        </PageBoundary>
      </main>
    </>
  );
}
