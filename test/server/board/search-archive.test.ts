// Issue #29, "Also noticed": cos_task_search leaves the archive out by default, and when the only matches
// are archived it says so (archived_matches and a hint in meta) instead of an empty list with no hint.
// Real task files the way other tools write them (zero-padded ids, front-matter keys the hub does not
// know, dates), the real hub on a real port, the official MCP client, and REST.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TestHub as FullHub } from '../../support/hub.ts';
import { startBoardHub } from './helpers.ts';

/** A task file the way another tool writes one: padded id, its own keys, a plain date, no hub version. */
const file = (key: string, title: string, status: string, body: string) =>
  [
    '---',
    `id: ${key}`,
    `title: ${title}`,
    `status: ${status}`,
    'priority: P2',
    'created: 2026-10-01',
    'tracker: legacy-tool',
    'estimate: 3 points',
    'owner: "@bea"',
    '---',
    '',
    '## Description',
    '',
    body,
    '',
  ].join('\n');

type Env = {
  ok: boolean;
  data: {
    results: { id: string; status: string }[];
    next_offset: number | null;
    archived_matches?: number;
    meta: Record<string, unknown>;
  };
};

let t: FullHub;
let client: Client;
let close: () => Promise<void>;

before(async () => {
  ({ t, client, close } = await startBoardHub((dir) => {
    const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
    // "zephyrine" only in the archive (a body, two titles), "quokkabar" in one archived task, "marmoset"
    // in the archive and outside it.
    write(
      'TASK-001 - Gamma ray logging.md',
      file('TASK-001', 'Gamma ray logging', 'archive', 'Old zephyrine work.'),
    );
    write(
      'TASK-002-zephyrine-cache.md',
      file('TASK-002', 'Zephyrine cache', 'archive', 'Cache the results.'),
    );
    write('task-003 - Zephyrine index.md', file('TASK-003', 'Zephyrine index', 'archive', 'Index it.'));
    write('TASK-0004-lone-relic.md', file('TASK-0004', 'Lone relic', 'archive', 'A single quokkabar.'));
    write('TASK-005-live-work.md', file('TASK-005', 'Live work', 'icebox', 'A marmoset at work.'));
    write('TASK-006-done-marmoset.md', file('TASK-006', 'Marmoset done', 'archive', 'Archived.'));
  }));
});
after(() => close());

async function search(args: Record<string, unknown>): Promise<Env['data']> {
  const result = await client.callTool({ name: 'cos_task_search', arguments: args });
  const env = result.structuredContent as Env;
  assert.equal(env.ok, true, JSON.stringify(env));
  // The text an agent reads carries the same hint.
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  if (env.data.meta.hint !== undefined) assert.ok(text.includes(String(env.data.meta.hint)), text);
  return env.data;
}

describe('cos_task_search and the archive', () => {
  it('MCP: only archived matches → an empty list, archived_matches and a hint naming include_archive', async () => {
    const three = await search({ query: 'zephyrine' });
    assert.deepEqual(three.results, []);
    assert.equal(three.next_offset, null);
    assert.equal(three.archived_matches, 3);
    assert.equal(three.meta.hint, '3 archived tasks match: pass include_archive: true to see them');

    const one = await search({ query: 'quokka' }); // the last word is a prefix
    assert.deepEqual(one.results, []);
    assert.equal(one.archived_matches, 1);
    assert.equal(one.meta.hint, '1 archived task matches: pass include_archive: true to see it');
  });

  it('MCP: no hint when something outside the archive matches, nothing matches, or the hint would not help', async () => {
    const live = await search({ query: 'marmoset' });
    assert.deepEqual(
      live.results.map((r) => r.id),
      ['TASK-005'],
    );
    assert.equal(live.archived_matches, undefined);
    assert.equal(live.meta.hint, undefined);

    const none = await search({ query: 'wombatine' });
    assert.deepEqual(none.results, []);
    assert.equal(none.archived_matches, undefined);
    assert.equal(none.meta.hint, undefined);

    // A status filter leaves the archive out whatever include_archive says; past the first page an
    // empty list means the pages ended, not that the matches are archived.
    for (const args of [
      { query: 'zephyrine', status: 'icebox' },
      { query: 'zephyrine', offset: 20 },
    ]) {
      const data = await search(args);
      assert.deepEqual(data.results, [], JSON.stringify(args));
      assert.equal(data.archived_matches, undefined, JSON.stringify(args));
    }
  });

  it('MCP: include_archive (or status archive) lists them under the ids their files write, padded', async () => {
    for (const args of [
      { query: 'zephyrine', include_archive: true },
      { query: 'zephyrine', status: 'archive' },
    ]) {
      const data = await search(args);
      assert.deepEqual(
        data.results.map((r) => r.id).sort(),
        ['TASK-001', 'TASK-002', 'TASK-003'],
        JSON.stringify(args),
      );
      assert.ok(data.results.every((r) => r.status === 'archive'));
      assert.equal(data.archived_matches, undefined, 'nothing was left out');
    }
    const padded = await search({ query: 'quokkabar', include_archive: true });
    assert.deepEqual(
      padded.results.map((r) => r.id),
      ['TASK-0004'],
    );
  });

  it('REST: /api/board/search answers archived_matches in data and the hint in meta', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/board/search?query=zephyrine',
      headers: { host: '127.0.0.1:9188' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { data: Env['data']; meta: Record<string, unknown> };
    assert.deepEqual(body.data.results, []);
    assert.equal(body.data.archived_matches, 3);
    assert.equal(body.meta.hint, '3 archived tasks match: pass include_archive: true to see them');
  });
});
