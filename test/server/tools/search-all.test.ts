// Unified search over a seeded repository with every service running: tasks, docs, memory, graph.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
const host = { host: '127.0.0.1' };
before(async () => {
  t = await startTestHub();
  const repo = t.config.repo;
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(
    join(repo, 'docs/tasks/TASK-1-zebra-migration.md'),
    '---\nid: TASK-1\ntitle: Zebra migration\nstatus: icebox\nkind: feature\npriority: P1\nversion: 1\n---\n\n## Outcome\n\nThe zebra herd moves.\n',
  );
  writeFileSync(join(repo, 'docs/zoo.md'), '# Zoo\n\n## Zebra guide\n\nHow to feed a zebra.\n');
  writeFileSync(join(repo, 'src/zebra.ts'), 'export function zebraCount(): number {\n  return 3;\n}\n');
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.app.inject({
    method: 'POST',
    url: '/api/memory/observations',
    payload: { title: 'Zebra stripes are unique', narrative: 'each zebra differs', type: 'fact' },
    headers: host,
  });
});
after(() => t.close());

test('one query finds a task, a doc heading, a memory and a symbol, each with how to open it', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/search?query=zebra', headers: host });
  assert.equal(res.statusCode, 200, res.body);
  const { data, meta } = res.json();
  for (const layer of ['tasks', 'docs', 'memory', 'graph'])
    assert.ok(data.counts[layer] >= 1, `${layer}: ${JSON.stringify(data.counts)}`);
  const first = (layer: string) => data.results.find((r: { layer: string }) => r.layer === layer);
  assert.equal(first('tasks').open.task_id, 'TASK-1');
  assert.equal(first('docs').open.path, 'docs/zoo.md');
  assert.match(first('docs').title, /Zebra guide/);
  assert.equal(typeof first('memory').open.observation_id, 'number');
  assert.match(first('graph').open.uid, /zebra/i);
  assert.deepEqual(meta.skipped_layers, []);
});

test('a disabled module is skipped and named in meta', async () => {
  t.hub.modules.set('memory', false);
  try {
    const res = await t.app.inject({ method: 'GET', url: '/api/search?query=zebra', headers: host });
    const { data, meta } = res.json();
    assert.equal(data.counts.memory, 0);
    assert.equal(meta.skipped_layers[0].layer, 'memory');
    assert.match(meta.skipped_layers[0].reason, /module_disabled/);
  } finally {
    t.hub.modules.set('memory', true);
  }
});
