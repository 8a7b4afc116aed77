// The containment tree (folders → files → symbols) under the current root, as a nested list a keyboard
// can walk: each entry selects its node, and <details> folds the branches.
import { ErrorNotice } from '../../components/error-notice.tsx';
import { TruncatedNotice } from '../../components/truncated-notice.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { graphExport } from './api.ts';

interface TreeNode {
  uid: string;
  label: string;
  kind: string;
  children: TreeNode[];
}

function Branch({
  node,
  onSelect,
  depth,
}: {
  node: TreeNode;
  onSelect: (uid: string) => void;
  depth: number;
}) {
  const label = (
    <button type="button" className="link" onClick={() => onSelect(node.uid)}>
      {node.label}
    </button>
  );
  if (node.children.length === 0) {
    return (
      <li>
        {label} <span className="muted">{node.kind}</span>
      </li>
    );
  }
  return (
    <li>
      <details open={depth < 2}>
        <summary>
          {label} <span className="muted">{node.kind}</span>
        </summary>
        <ul className="tree-list">
          {node.children.map((c) => (
            <Branch key={c.uid} node={c} onSelect={onSelect} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

export function ContainmentTree({
  root,
  onSelect,
}: {
  root: string | undefined;
  onSelect: (uid: string) => void;
}) {
  const q = useQuery(`tree:${root ?? ''}`, (signal) =>
    graphExport({ mode: 'containment', max_nodes: 2000, ...(root ? { root } : {}) }, signal),
  );
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Loading…</p>;
  const byId = new Map<string, TreeNode>();
  for (const n of v.data.nodes ?? [])
    byId.set(n.uid, { uid: n.uid, label: n.label, kind: n.kind, children: [] });
  const hasParent = new Set<string>();
  for (const e of v.data.edges ?? []) {
    if (e.type !== 'contains') continue;
    const parent = byId.get(e.source);
    const child = byId.get(e.target);
    if (parent && child) {
      parent.children.push(child);
      hasParent.add(child.uid);
    }
  }
  const roots = [...byId.values()].filter((n) => !hasParent.has(n.uid));
  return (
    <div className="tree" data-testid="containment-tree">
      <ul className="tree-list">
        {roots.map((r) => (
          <Branch key={r.uid} node={r} onSelect={onSelect} depth={0} />
        ))}
      </ul>
      <TruncatedNotice meta={v.meta} />
    </div>
  );
}
