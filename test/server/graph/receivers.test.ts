// Object-literal methods and receivers the graph follows through declared types (issue 31): `const api =
// { get() {…}, post: () => … }` gives methods `api.get`, `api.post` that own their calls and that
// `api.get()` reaches (from other files too); `this.cache.store.get()`, `getStore().get()`,
// `makeCache().lookup()`, `this.repo().find()` and an imported `defaultStore.get()` reach the method
// where the fields and return types are declared, in whichever file declares them; where no type is
// declared the call stays unresolved rather than guessed. Written as such code is: an API client
// object `satisfies` its shape, a CommonJS handlers object in JavaScript, a service over a base class.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../../server/db/open.ts';
import { Indexer } from '../../../server/graph/indexer.ts';
import { type GraphHub, graphHub } from './tools/support.ts';

let dir: string;
let g: GraphHub;

const FILES: Record<string, string> = {
  'src/client/api.ts': `import type { ApiShape } from './shape';

const BASE = process.env.API_URL ?? 'http://localhost:3000';

export const api = {
  async get<T>(path: string): Promise<T> {
    return (await api.request('GET', path)) as T;
  },
  post: async (path: string, body: unknown) => api.request('POST', path, body),
  request: async function (method: string, path: string, body?: unknown) {
    const res = await fetch(BASE + path, { method, body: JSON.stringify(body) });
    if (!res.ok) this.fail(res.status);
    return res.json();
  },
  fail(status: number): never {
    throw new Error(\`HTTP \${status}\`);
  },
  users: {
    list: () => api.get('/users'),
  },
} satisfies ApiShape;
`,
  'src/client/hooks.ts': `export const hooks = {
  beforeSend(req: Request): Request {
    return req;
  },
};
`,
  'src/schema/struct.ts': `export declare namespace StructWithRest {
  type Fields = Record<string, unknown>;
}

export interface StructWithRest {
  readonly fields: StructWithRest.Fields;
}

export function StructWithRest(fields: StructWithRest.Fields): StructWithRest {
  return { fields };
}
`,
  'src/schema/use.ts': `import * as Schema from './struct';

export const Meta = Schema.StructWithRest({ a: 1 });

export function describe(s: Schema.StructWithRest): string {
  return Object.keys(s.fields).join();
}
`,
  'src/client/shape.ts': `export interface ApiShape {
  get(path: string): Promise<unknown>;
}
`,
  'src/pages/users.ts': `import { api } from '../client/api';

export async function loadUsers() {
  const all = await api.users.list();
  await api.post('/audit', { seen: all });
  return all;
}
`,
  'src/legacy/handlers.js': `function track(name, target) {
  return [name, target];
}

const handlers = {
  onClick(e) {
    track('click', e.target);
    this.onHover(e);
  },
  onHover: function (e) {
    track('hover', e.target);
  },
};

function wire(el) {
  el.addEventListener('click', (e) => handlers.onClick(e));
}

module.exports = { handlers, wire };
`,
  'src/db/store.ts': `export class Store {
  get(key: string): string | undefined {
    return this.data.get(key);
  }
  put(key: string, value: string): void {
    this.data.set(key, value);
  }
  private data = new Map<string, string>();
}

export class Cache {
  store: Store = new Store();
  lookup(key: string) {
    return this.store.get(key);
  }
}

export class Repo {
  find(id: string) {
    return id;
  }
}

export function getStore(): Store {
  return new Store();
}

export const makeCache = (): Cache => new Cache();

export const defaultStore: Store = new Store();

export function getAny() {
  return new Store();
}

export function make<T>(f: () => T): T {
  return f();
}

export async function openStore(): Promise<Store> {
  return new Store();
}

export async function openCache(): Promise<Cache> {
  return new Cache();
}

export const shared = getStore();
`,
  'src/db/base.ts': `import { Cache } from './store';

export abstract class BaseService {
  protected cache: Cache = new Cache();
}
`,
  'src/service.ts': `import { BaseService } from './db/base';
import * as db from './db/store';
import {
  defaultStore,
  getAny,
  getStore,
  makeCache,
  make,
  openCache,
  openStore,
  Repo,
  shared,
  Store,
} from './db/store';

export class Service extends BaseService {
  constructor(private readonly repos: Map<string, Repo>) {
    super();
  }

  repo(): Repo {
    return this.repos.get('main') ?? new Repo();
  }

  run(raw: unknown) {
    this.cache.store.get('a');
    getStore().put('b', 'c');
    makeCache().lookup('d');
    this.repo().find('e');
    db.getStore().get('f');
    defaultStore.get('g');
    (raw as Store).put('h', 'i');
    new db.Cache().store.put('j', 'k');
    getAny().get('l');
    make(() => new Store()).get('m');
  }

  async boot() {
    const store = getStore();
    store.put('n', 'o');
    const cache = await openCache();
    cache.lookup('p');
    const repo = this.repo();
    repo.find('q');
    (await openStore()).get('r');
    shared.get('s');
    const pending = openStore();
    pending.get('t');
  }
}
`,
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cos-receivers-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  g = await graphHub(dir);
});
after(async () => {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Edge {
  source: string;
  target: string;
  line: number;
  confidence: number;
}
const calls = (where: string, ...args: unknown[]): Edge[] =>
  g.hub.db
    .prepare(
      `SELECT s.uid AS source, t.uid AS target, e.line, e.confidence FROM graph_edges e
       JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
       WHERE e.edge_type = 'calls' AND ${where} ORDER BY e.line, e.col`,
    )
    .all(...args) as Edge[];
const node = (uid: string) =>
  g.hub.db.prepare('SELECT uid, kind, label, start_line, end_line FROM graph_nodes WHERE uid = ?').get(uid) as
    | { uid: string; kind: string; label: string; start_line: number; end_line: number }
    | undefined;
const parentOf = (uid: string) =>
  g.hub.db
    .prepare(
      `SELECT s.uid FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
       WHERE e.edge_type = 'contains' AND t.uid = ?`,
    )
    .pluck()
    .get(uid);

const API = 'code:constant:src/client/api.ts::api';
const m = (path: string, qname: string) => `code:method:${path}::${qname}`;

describe('object-literal methods', () => {
  test('each function-valued property is a method under the constant, with its lines', () => {
    for (const [qname, label, lines] of [
      ['api.get', 'get', [6, 8]],
      ['api.post', 'post', [9, 9]],
      ['api.request', 'request', [10, 14]],
      ['api.fail', 'fail', [15, 17]],
      ['api.users.list', 'list', [19, 19]],
    ] as const) {
      const n = node(m('src/client/api.ts', qname));
      assert.ok(n, `${qname} is a node`);
      assert.equal(n.kind, 'method');
      assert.equal(n.label, label);
      assert.deepEqual([n.start_line, n.end_line], lines, qname);
      assert.equal(parentOf(n.uid), API, `${qname} is contained by the constant`);
    }
    assert.equal(node('code:method:src/client/api.ts::api.users'), undefined, 'a nested object is no method');
  });

  test('calls made in a method are its own, and the object is `this` in a method, not in an arrow', () => {
    assert.deepEqual(
      calls('s.uid = ?', m('src/client/api.ts', 'api.request')).map((e) => [e.target, e.confidence]),
      [
        ['code:external:fetch', 0.5],
        ['code:external:(unresolved)::stringify', 0.2],
        [m('src/client/api.ts', 'api.fail'), 1],
        ['code:external:(unresolved)::json', 0.2],
      ],
    );
    assert.deepEqual(
      calls('s.uid = ?', m('src/client/api.ts', 'api.get')).map((e) => e.target),
      [m('src/client/api.ts', 'api.request')],
    );
    assert.deepEqual(
      calls('s.uid = ?', m('src/client/api.ts', 'api.users.list')).map((e) => e.target),
      [m('src/client/api.ts', 'api.get')],
    );
    assert.deepEqual(calls('s.uid = ?', API), [], 'the constant itself makes no call');
  });

  test('api.post() and api.users.list() from another file reach the methods', () => {
    assert.deepEqual(
      calls("s.uid = 'code:function:src/pages/users.ts::loadUsers'").map((e) => [
        e.target,
        e.line,
        e.confidence,
      ]),
      [
        [m('src/client/api.ts', 'api.users.list'), 4, 1],
        [m('src/client/api.ts', 'api.post'), 5, 1],
      ],
    );
  });

  test('JavaScript: a handlers object called by an arrow, this.onHover() inside it', () => {
    const onClick = m('src/legacy/handlers.js', 'handlers.onClick');
    const onHover = m('src/legacy/handlers.js', 'handlers.onHover');
    assert.equal(node(onClick)?.kind, 'method');
    assert.equal(node(onHover)?.kind, 'method');
    assert.deepEqual(
      calls('s.uid = ?', onClick).map((e) => e.target),
      ['code:function:src/legacy/handlers.js::track', onHover],
    );
    assert.deepEqual(
      calls('t.uid = ?', onClick).map((e) => [e.source, e.line]),
      [['code:function:src/legacy/handlers.js::wire', 16]],
    );
  });

  test('dead_code: a method nothing calls directly is low confidence, its object may be passed on', async () => {
    const d = await g.data('cos_graph_dead_code', { path_prefix: 'src/client' });
    const hook = d.dead.find((x: { uid: string }) => x.uid === m('src/client/hooks.ts', 'hooks.beforeSend'));
    assert.ok(hook, 'listed');
    assert.equal(hook.confidence, 'low');
    assert.ok(hook.reasons.some((r: string) => r.includes('a method of the object hooks')));
    const listed = d.dead.map((x: { uid: string }) => x.uid);
    assert.ok(!listed.includes(m('src/client/api.ts', 'api.request')), 'api.request is called');
  });

  test('a qualified name of one method resolves exactly', async () => {
    const d = await g.data('cos_graph_context', { node: 'api.users.list' });
    assert.equal(d.node.uid, m('src/client/api.ts', 'api.users.list'));
    assert.equal(d.meta.resolved_from, 'exact_unique');
  });
});

describe('a namespace merged with a function and an interface', () => {
  test('a call is of the function, a type use of the interface, not the namespace', () => {
    assert.deepEqual(
      calls("s.uid = 'code:constant:src/schema/use.ts::Meta'").map((e) => e.target),
      ['code:function:src/schema/struct.ts::StructWithRest'],
    );
    const types = g.hub.db
      .prepare(
        `SELECT t.uid FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
         WHERE e.edge_type = 'has_param_type' AND s.uid = 'code:function:src/schema/use.ts::describe'`,
      )
      .pluck()
      .all();
    assert.deepEqual(types, ['code:interface:src/schema/struct.ts::StructWithRest']);
  });
});

/** The line of `needle` in a fixture file. */
const lineOf = (path: string, needle: string): number => {
  const i = FILES[path]!.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, needle);
  return i + 1;
};

describe('receivers followed through declared types', () => {
  const RUN = 'code:method:src/service.ts::Service.run';
  const at = (line: number, from = RUN) =>
    calls('s.uid = ? AND e.line = ?', from, line)
      .filter((e) => !e.target.startsWith('code:function:'))
      .map((e) => [e.target, e.confidence]);
  const store = (name: string) => [m('src/db/store.ts', `Store.${name}`), 0.9];
  const on = (needle: string) => at(lineOf('src/service.ts', needle));

  test('a local declared with a call, an awaited promise, a module-level value made by a call', () => {
    const BOOT = 'code:method:src/service.ts::Service.boot';
    const onBoot = (needle: string) => at(lineOf('src/service.ts', needle), BOOT);
    assert.deepEqual(onBoot("store.put('n'"), [store('put')]);
    assert.deepEqual(onBoot("cache.lookup('p')"), [[m('src/db/store.ts', 'Cache.lookup'), 0.9]]);
    assert.deepEqual(onBoot("repo.find('q')"), [[m('src/db/store.ts', 'Repo.find'), 0.9]]);
    assert.deepEqual(onBoot("(await openStore()).get('r')"), [store('get')]);
    assert.deepEqual(onBoot("shared.get('s')"), [store('get')]);
    // A promise not awaited has no get().
    assert.deepEqual(onBoot("pending.get('t')"), [['code:external:(unresolved)::get', 0.2]]);
  });

  test('this.cache.store.get(): a field declared in a base class of another file, then its field', () => {
    assert.deepEqual(on("this.cache.store.get('a')"), [store('get')]);
  });

  test('a call result: getStore().put(), makeCache().lookup(), this.repo().find(), db.getStore().get()', () => {
    assert.deepEqual(on("getStore().put('b'"), [store('put')]);
    assert.deepEqual(on("makeCache().lookup('d')"), [[m('src/db/store.ts', 'Cache.lookup'), 0.9]]);
    assert.deepEqual(on("this.repo().find('e')"), [
      [m('src/service.ts', 'Service.repo'), 1],
      [m('src/db/store.ts', 'Repo.find'), 0.9],
    ]);
    assert.deepEqual(on("db.getStore().get('f')"), [store('get')]);
    // The functions themselves are called too, exactly.
    assert.deepEqual(
      calls(
        's.uid = ? AND e.line IN (?, ?, ?)',
        RUN,
        lineOf('src/service.ts', "getStore().put('b'"),
        lineOf('src/service.ts', "makeCache().lookup('d')"),
        lineOf('src/service.ts', "db.getStore().get('f')"),
      )
        .filter((e) => e.target.startsWith('code:function:'))
        .map((e) => [e.target, e.confidence]),
      [
        ['code:function:src/db/store.ts::getStore', 1],
        ['code:function:src/db/store.ts::makeCache', 1],
        ['code:function:src/db/store.ts::getStore', 1],
      ],
    );
  });

  test('an imported constant with a declared type, a cast, and a field of a constructed object', () => {
    assert.deepEqual(on("defaultStore.get('g')"), [store('get')]);
    assert.deepEqual(on("(raw as Store).put('h'"), [store('put')]);
    assert.deepEqual(on("new db.Cache().store.put('j'"), [store('put')]);
  });

  test('no declared type, a type parameter: unresolved, not guessed', () => {
    assert.deepEqual(on("getAny().get('l')"), [['code:external:(unresolved)::get', 0.2]]);
    assert.deepEqual(on("make(() => new Store()).get('m')"), [['code:external:(unresolved)::get', 0.2]]);
  });
});

describe('chains and the files they go through, incrementally', () => {
  test('a changed return type re-resolves its importers; a restarted indexer reads the types back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cos-receivers-inc-'));
    const repo = join(dir, 'repo');
    const w = (path: string, text: string) => {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    };
    w(
      'src/stores.ts',
      `export class Store {\n  get(k: string) {\n    return k;\n  }\n}\nexport class Cache {\n  get(k: string) {\n    return k;\n  }\n}\nexport function open(): Store {\n  return new Store();\n}\n`,
    );
    w(
      'src/use.ts',
      `import { open } from './stores';\n\nexport function read() {\n  const s = open();\n  return s.get('a');\n}\n`,
    );
    const db = openDatabase(join(dir, 'hub.db'));
    const target = () =>
      db
        .prepare(
          `SELECT t.uid FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
           WHERE e.edge_type = 'calls' AND s.uid = 'code:function:src/use.ts::read' AND e.line = 5`,
        )
        .pluck()
        .all();
    try {
      await new Indexer({ repo, db }).run({});
      assert.deepEqual(target(), ['code:method:src/stores.ts::Store.get']);
      w(
        'src/stores.ts',
        readFileSync(join(repo, 'src/stores.ts'), 'utf8').replace('open(): Store', 'open(): Cache'),
      );
      await new Indexer({ repo, db }).run({ paths: ['src/stores.ts'] });
      assert.deepEqual(target(), ['code:method:src/stores.ts::Cache.get']);
      // A new indexer (a restarted thread) knows stores.ts only from the database: its facts hold the types.
      w('src/use.ts', `${readFileSync(join(repo, 'src/use.ts'), 'utf8')}// touched\n`);
      await new Indexer({ repo, db }).run({ paths: ['src/use.ts'] });
      assert.deepEqual(target(), ['code:method:src/stores.ts::Cache.get']);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
