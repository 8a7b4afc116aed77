// The header's project switcher: every project the hub serves, the current one selected. Choosing one
// opens the same page in that project (a full load: its API, its stream, nothing cached from this one).

import { listProjects } from '../features/home/api.ts';
import { PROJECT_SLUG, pageInProject } from '../lib/project.ts';
import { useLocation } from '../lib/router.tsx';
import { useQuery } from '../lib/use-query.ts';

export function ProjectSwitcher() {
  const query = useQuery('projects', listProjects);
  const location = useLocation();
  const projects = query.state.value?.data.projects ?? [];
  // One project: nothing to switch to, and the header stays as it was.
  if (projects.length < 2) return null;
  const current = PROJECT_SLUG ?? projects.find((p) => p.default)?.slug ?? '';
  const page = location.path === '/' ? '/board' : location.path;
  const go = (slug: string) => {
    const target = projects.find((p) => p.slug === slug);
    if (!target || slug === current) return;
    // The same page, not its query: a task id or a symbol of this project means nothing in another.
    // The default project keeps its own URLs at `/`; every other is under /p/<slug>/.
    window.location.assign(pageInProject(target.default ? null : slug, page));
  };
  return (
    <label className="project-switcher" data-testid="project-switcher">
      <span className="visually-hidden">Project</span>
      <select value={current} onChange={(e) => go(e.target.value)} aria-label="Project">
        {projects.map((p) => (
          <option key={p.slug} value={p.slug}>
            {p.slug}
            {p.default ? ' (default)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
