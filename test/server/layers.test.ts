import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

// Imports point down the layers (adapters → tools → domain services → stores → shared). The domain
// services and the layers under them must never reach up into server/tools/, the faces above it or the
// files that assemble the hub: the errors they throw and share live in server/errors.ts, the services
// interface they each extend in server/hub-services.ts, and who is calling in server/caller.ts.
const root = resolve(import.meta.dirname, '../..');
const below = [
  'server/agents',
  'server/board',
  'server/coord',
  'server/costs',
  'server/db',
  'server/docs',
  'server/events',
  'server/fs',
  'server/git',
  'server/graph',
  'server/hooks',
  'server/memory',
  'server/messages',
  'server/observability',
  'server/search',
  'server/supervise',
  'server/telemetry',
  'server/caller.ts',
  'server/errors.ts',
  'server/hub-services.ts',
];
const above = [
  'server/tools',
  'server/http',
  'server/mcp',
  'server/cli',
  'server/app.ts',
  'server/hub.ts',
  'server/services.ts',
  'server/main.ts',
];

function files(dir: string): string[] {
  if (!statSync(dir).isDirectory()) return [dir];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (/\.(ts|mjs)$/.test(name)) out.push(full);
  }
  return out;
}

describe('layers', () => {
  it('no domain service, store or shared module imports from (or augments) the tools layer, the faces or the hub assembly', () => {
    const upward: string[] = [];
    for (const dir of below) {
      for (const file of files(join(root, dir))) {
        const text = readFileSync(file, 'utf8');
        // Imports, dynamic imports, and `declare module '…'` (an augmentation reaches up as an import does).
        const refs = /\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'|^\s*declare module '(\.[^']+)'/gm;
        for (const m of text.matchAll(refs)) {
          const target = relative(root, resolve(file, '..', m[1] ?? m[2] ?? m[3] ?? ''));
          if (above.some((a) => target === a || target.startsWith(`${a}/`))) {
            upward.push(`${relative(root, file)} → ${target}`);
          }
        }
      }
    }
    assert.deepEqual(upward, []);
  });
});
