// The repository map offered at SessionStart, through real hook payloads posted to the hub's hook route
// as each client sends them: after the line that names the agent's session, about 1,000 tokens of map
// (groups of code, the most depended-on symbols, the calls to go deeper); the same text for every
// session of one graph generation, a new one after the graph changes; off with the `map` setting; and a
// map that is still being computed never holds a session up past its bound.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  MAP_WORKER_EDGES,
  mapModel,
  setMapWorkerThreshold,
} from '../../../server/graph/queries/map-cache.ts';
import { SESSION_MAP_CHARS, sessionMap } from '../../../server/graph/queries/overview.ts';
import { type Client, fixture } from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;

function write(path: string, text: string): void {
  const full = join(t.config.repo, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

before(async () => {
  t = await startTestHub({ env: { COS_REPO: 'repo', COS_STATE_DIR: 'state', COS_RATE_LIMIT_RPS: '0' } });
  mkdirSync(t.config.repo, { recursive: true });
  write('lib/store.ts', 'export class Store {\n  get(k: string): string {\n    return k;\n  }\n}\n');
  for (const name of ['orders', 'carts', 'users', 'prices']) {
    write(
      `lib/${name}.ts`,
      `import { Store } from './store';\nexport function load_${name}(s: Store): string {\n  return s.get('${name}');\n}\n`,
    );
  }
  write('cli/main.py', 'from cli.args import parse\n\ndef main():\n    return parse()\n');
  write('cli/args.py', 'def parse():\n    return 1\n');
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.listen();
});
after(() => t.close());

interface Answer {
  hookSpecificOutput?: { hookEventName?: string; additionalContext?: string };
}

async function sessionStart(client: Client, session: string): Promise<string> {
  const payload = fixture(client, 'session-start', t.config.repo, { session_id: session });
  const res = await fetch(`${t.url}/api/hooks/events?client=${client}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Answer;
  assert.equal(body.hookSpecificOutput?.hookEventName, 'SessionStart');
  return body.hookSpecificOutput?.additionalContext ?? '';
}

const mapPart = (context: string) => context.slice(context.indexOf('Repository map'));

describe('the SessionStart map', () => {
  test('Claude Code and Codex get the session line, then the map within about 1,000 tokens', async () => {
    for (const client of ['claude-code', 'codex'] as const) {
      const context = await sessionStart(client, `map-${client}`);
      assert.match(context, new RegExp(`agent_session: "map-${client}"`));
      assert.ok(context.includes('Repository map (cos hub):'), context);
      const map = mapPart(context);
      assert.ok(map.length <= SESSION_MAP_CHARS, `${map.length}`);
      assert.match(map, /Groups of code that belong together/);
      assert.match(map, /- \[1\] lib · /);
      assert.match(map, /Most depended-on:\n- Store \(class, lib\/store\.ts\)/);
      assert.match(map, /cos_graph_communities/);
    }
  });

  test('is the same for every session of a generation, and follows the graph when it changes', async () => {
    const first = mapPart(await sessionStart('claude-code', 'gen-a'));
    assert.equal(mapPart(await sessionStart('gemini', 'gen-b')), first);
    const files = Number(/(\d+) files/.exec(first)?.[1]);
    write(
      'lib/taxes.ts',
      "import { Store } from './store';\nexport const taxes = (s: Store) => s.get('t');\n",
    );
    await t.hub.services.graph.reindex();
    const next = mapPart(await sessionStart('claude-code', 'gen-c'));
    assert.equal(Number(/(\d+) files/.exec(next)?.[1]), files + 1);
  });

  test('the map setting turns it off and on', async () => {
    const patch = (map: boolean) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/settings/hooks',
        headers: { host: '127.0.0.1' },
        payload: { map },
      });
    assert.equal((await patch(false)).statusCode, 200);
    const off = await sessionStart('claude-code', 'off-1');
    assert.match(off, /agent_session: "off-1"/);
    assert.equal(off.includes('Repository map'), false);
    assert.equal((await patch(true)).json().data.settings.map, true);
    assert.ok((await sessionStart('claude-code', 'on-1')).includes('Repository map'));
  });

  test('a map still being computed gives the last one, marked, without waiting past the bound', async () => {
    const db = t.hub.db;
    write('lib/fees.ts', "import { Store } from './store';\nexport const fees = (s: Store) => s.get('f');\n");
    await t.hub.services.graph.reindex();
    setMapWorkerThreshold(0);
    try {
      const started = performance.now();
      const text = await sessionMap(db, 0);
      assert.ok(performance.now() - started < 300);
      assert.ok(text?.includes('Repository map'));
      assert.match(text ?? '', /as of graph generation \d+; a newer map is on its way/);
      // The computation it started finishes in its thread; the next session gets the new map.
      const m = await mapModel(db);
      const now = await sessionMap(db, 0);
      assert.equal(now?.includes('a newer map is on its way'), false);
      assert.equal(m.generation, t.hub.services.graph.freshness().generation);
    } finally {
      setMapWorkerThreshold(MAP_WORKER_EDGES);
    }
  });
});
