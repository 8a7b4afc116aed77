import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

// Imports point down the layers (adapters → tools → domain services → stores → shared). The domain
// services and the layers under them must never reach up into server/tools/ or the faces above it: the
// errors they throw and share live in server/errors.ts for that reason.
const root = resolve(import.meta.dirname, '../..');
const below = [
  'server/board',
  'server/memory',
  'server/docs',
  'server/supervise',
  'server/db',
  'server/events',
];
const above = ['server/tools', 'server/http', 'server/mcp', 'server/app.ts'];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (/\.(ts|mjs)$/.test(name)) out.push(full);
  }
  return out;
}

describe('layers', () => {
  it('no domain service, store or shared module imports from the tools layer or the faces', () => {
    const upward: string[] = [];
    for (const dir of below) {
      for (const file of files(join(root, dir))) {
        const text = readFileSync(file, 'utf8');
        for (const m of text.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'/g)) {
          const target = relative(root, resolve(file, '..', m[1] ?? m[2] ?? ''));
          if (above.some((a) => target === a || target.startsWith(`${a}/`))) {
            upward.push(`${relative(root, file)} → ${target}`);
          }
        }
      }
    }
    assert.deepEqual(upward, []);
  });
});
