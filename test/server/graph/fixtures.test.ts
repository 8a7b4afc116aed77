// Each fixture repository under test/fixtures/graph/<lang>/ is small enough to check by hand; these
// are its nodes (folders aside) and edges (folder containment aside), exactly: a missing edge and an
// extra edge both fail, so resolution can only change on purpose.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../server/db/open.ts';
import { Indexer } from '../../../server/graph/indexer.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/graph/', import.meta.url));

const EXPECTED: Record<string, { nodes: string[]; edges: string[] }> = {
  ts: {
    nodes: [
      'class code:class:src/lib/math.ts::Calculator',
      'dependency code:dependency:left-pad',
      'external code:external:String',
      'external code:external:left-pad::default',
      'file code:file:package.json',
      'file code:file:src/app.test.ts',
      'file code:file:src/app.ts',
      'file code:file:src/lib/format.ts',
      'file code:file:src/lib/index.ts',
      'file code:file:src/lib/math.ts',
      'function code:function:src/app.ts::main',
      'function code:function:src/lib/format.ts::format',
      'function code:function:src/lib/math.ts::add',
      'method code:method:src/lib/math.ts::Calculator.add',
      'method code:method:src/lib/math.ts::Calculator.reset',
      'doc_file doc:file:README.md',
      'heading doc:heading:README.md#fixture',
      'heading doc:heading:README.md#usage',
    ],
    edges: [
      'code:class:src/lib/math.ts::Calculator contains code:method:src/lib/math.ts::Calculator.add @7',
      'code:class:src/lib/math.ts::Calculator contains code:method:src/lib/math.ts::Calculator.reset @11',
      'code:file:package.json requires code:dependency:left-pad @1',
      'code:file:src/app.test.ts imports code:file:src/app.ts @1',
      'code:file:src/app.test.ts tests code:file:src/app.ts @1',
      'code:file:src/app.test.ts calls code:function:src/app.ts::main @3',
      'code:file:src/app.ts imports code:file:src/lib/math.ts @2',
      'code:file:src/app.ts imports code:file:src/lib/index.ts @3',
      'code:file:src/app.ts contains code:function:src/app.ts::main @5',
      'code:file:src/lib/format.ts imports code:dependency:left-pad @2',
      'code:file:src/lib/format.ts contains code:function:src/lib/format.ts::format @4',
      'code:file:src/lib/index.ts imports code:file:src/lib/math.ts @1',
      'code:file:src/lib/index.ts imports code:file:src/lib/format.ts @2',
      'code:file:src/lib/math.ts contains code:function:src/lib/math.ts::add @1',
      'code:file:src/lib/math.ts contains code:class:src/lib/math.ts::Calculator @5',
      'code:function:src/app.ts::main constructs code:class:src/lib/math.ts::Calculator @6',
      'code:function:src/app.ts::main calls code:method:src/lib/math.ts::Calculator.add @7',
      'code:function:src/app.ts::main calls code:function:src/lib/math.ts::add @7',
      'code:function:src/app.ts::main calls code:method:src/lib/math.ts::Calculator.reset @8',
      'code:function:src/app.ts::main calls code:function:src/lib/format.ts::format @9',
      'code:function:src/lib/format.ts::format calls code:external:left-pad::default @5',
      'code:function:src/lib/format.ts::format calls code:external:String @5',
      'code:method:src/lib/math.ts::Calculator.add returns_type code:class:src/lib/math.ts::Calculator @7',
      'code:method:src/lib/math.ts::Calculator.add calls code:function:src/lib/math.ts::add @8',
      'doc:file:README.md contains doc:heading:README.md#fixture @1',
      'doc:heading:README.md#fixture links_to code:file:src/app.ts @3',
      'doc:heading:README.md#fixture cites_heading doc:heading:README.md#usage @3',
      'doc:heading:README.md#fixture links_to code:function:src/app.ts::main @3',
      'doc:heading:README.md#fixture contains doc:heading:README.md#usage @5',
    ],
  },
  py: {
    nodes: [
      'class code:class:pkg/models.py::Base',
      'class code:class:pkg/models.py::User',
      'dependency code:dependency:requests',
      'external code:external:(unresolved)::greet',
      'external code:external:(unresolved)::upper',
      'external code:external:requests::get',
      'file code:file:main.py',
      'file code:file:pkg/__init__.py',
      'file code:file:pkg/models.py',
      'file code:file:pkg/util.py',
      'file code:file:requirements.txt',
      'file code:file:tests/test_models.py',
      'function code:function:main.py::run',
      'function code:function:pkg/__init__.py::shout',
      'function code:function:pkg/util.py::helper',
      'function code:function:tests/test_models.py::test_greet',
      'method code:method:pkg/models.py::Base.save',
      'method code:method:pkg/models.py::Base.validate',
      'method code:method:pkg/models.py::User.__init__',
      'method code:method:pkg/models.py::User.greet',
    ],
    edges: [
      'code:class:pkg/models.py::Base contains code:method:pkg/models.py::Base.save @5',
      'code:class:pkg/models.py::Base contains code:method:pkg/models.py::Base.validate @8',
      'code:class:pkg/models.py::User inherits_from code:class:pkg/models.py::Base @12',
      'code:class:pkg/models.py::User contains code:method:pkg/models.py::User.__init__ @13',
      'code:class:pkg/models.py::User contains code:method:pkg/models.py::User.greet @16',
      'code:file:main.py imports code:dependency:requests @1',
      'code:file:main.py imports code:file:pkg/util.py @2',
      'code:file:main.py imports code:file:pkg/models.py @3',
      'code:file:main.py contains code:function:main.py::run @6',
      'code:file:main.py calls code:function:main.py::run @12',
      'code:file:main.py constructs code:class:pkg/models.py::User @12',
      'code:file:pkg/__init__.py imports code:file:pkg/util.py @1',
      'code:file:pkg/__init__.py contains code:function:pkg/__init__.py::shout @4',
      'code:file:pkg/models.py imports code:file:pkg/util.py @1',
      'code:file:pkg/models.py contains code:class:pkg/models.py::Base @4',
      'code:file:pkg/models.py contains code:class:pkg/models.py::User @12',
      'code:file:pkg/util.py contains code:function:pkg/util.py::helper @1',
      'code:file:requirements.txt requires code:dependency:requests @1',
      'code:file:tests/test_models.py imports code:file:pkg/models.py @1',
      'code:file:tests/test_models.py tests code:file:pkg/models.py @1',
      'code:file:tests/test_models.py contains code:function:tests/test_models.py::test_greet @4',
      'code:function:main.py::run has_param_type code:class:pkg/models.py::User @6',
      'code:function:main.py::run calls code:method:pkg/models.py::Base.save @7',
      'code:function:main.py::run calls code:function:pkg/util.py::helper @8',
      'code:function:main.py::run calls code:external:requests::get @9',
      'code:function:pkg/__init__.py::shout calls code:function:pkg/util.py::helper @5',
      'code:function:pkg/util.py::helper calls code:external:(unresolved)::upper @2',
      'code:function:tests/test_models.py::test_greet constructs code:class:pkg/models.py::User @5',
      'code:function:tests/test_models.py::test_greet calls code:external:(unresolved)::greet @5',
      'code:method:pkg/models.py::Base.save calls code:method:pkg/models.py::Base.validate @6',
      'code:method:pkg/models.py::User.greet calls code:function:pkg/util.py::helper @17',
    ],
  },
  go: {
    nodes: [
      'class code:class:store/store.go::Store',
      'dependency code:dependency:github.com/google/uuid',
      'external code:external:fmt',
      'external code:external:fmt::Println',
      'external code:external:github.com/google/uuid::New',
      'file code:file:go.mod',
      'file code:file:main.go',
      'file code:file:store/format.go',
      'file code:file:store/store.go',
      'function code:function:main.go::main',
      'function code:function:store/format.go::format',
      'function code:function:store/store.go::New',
      'method code:method:store/store.go::Store.Add',
      'method code:method:store/store.go::Store.log',
    ],
    edges: [
      'code:class:store/store.go::Store contains code:method:store/store.go::Store.Add @11',
      'code:class:store/store.go::Store contains code:method:store/store.go::Store.log @16',
      'code:file:go.mod requires code:dependency:github.com/google/uuid @5',
      'code:file:main.go imports code:external:fmt @4',
      'code:file:main.go imports code:file:store/format.go @6',
      'code:file:main.go imports code:file:store/store.go @6',
      'code:file:main.go imports code:dependency:github.com/google/uuid @7',
      'code:file:main.go contains code:function:main.go::main @10',
      'code:file:store/format.go contains code:function:store/format.go::format @3',
      'code:file:store/store.go contains code:class:store/store.go::Store @3',
      'code:file:store/store.go contains code:function:store/store.go::New @7',
      'code:function:main.go::main calls code:function:store/store.go::New @11',
      'code:function:main.go::main calls code:method:store/store.go::Store.Add @12',
      'code:function:main.go::main calls code:external:fmt::Println @13',
      'code:function:main.go::main calls code:external:github.com/google/uuid::New @13',
      'code:function:store/store.go::New returns_type code:class:store/store.go::Store @7',
      'code:function:store/store.go::New constructs code:class:store/store.go::Store @8',
      'code:method:store/store.go::Store.Add calls code:method:store/store.go::Store.log @13',
      'code:method:store/store.go::Store.log calls code:function:store/format.go::format @17',
    ],
  },
  java: {
    nodes: [
      'class code:class:src/main/java/com/shop/App.java::App',
      'class code:class:src/main/java/com/shop/model/Item.java::Item',
      'class code:class:src/main/java/com/shop/service/Cart.java::Cart',
      'external code:external:(unresolved)::println',
      'external code:external:java.util.ArrayList',
      'external code:external:java.util.ArrayList::ArrayList',
      'external code:external:java.util.List',
      'external code:external:java.util.List::List.add',
      'external code:external:java.util.List::List.size',
      'file code:file:src/main/java/com/shop/App.java',
      'file code:file:src/main/java/com/shop/model/Item.java',
      'file code:file:src/main/java/com/shop/service/Cart.java',
      'file code:file:src/main/java/com/shop/service/Countable.java',
      'interface code:interface:src/main/java/com/shop/service/Countable.java::Countable',
      'method code:method:src/main/java/com/shop/App.java::App.main',
      'method code:method:src/main/java/com/shop/model/Item.java::Item.constructor',
      'method code:method:src/main/java/com/shop/model/Item.java::Item.getName',
      'method code:method:src/main/java/com/shop/service/Cart.java::Cart.add',
      'method code:method:src/main/java/com/shop/service/Cart.java::Cart.count',
      'method code:method:src/main/java/com/shop/service/Cart.java::Cart.log',
      'method code:method:src/main/java/com/shop/service/Countable.java::Countable.count',
      'variable code:variable:src/main/java/com/shop/model/Item.java::Item.name',
      'variable code:variable:src/main/java/com/shop/service/Cart.java::Cart.items',
    ],
    edges: [
      'code:class:src/main/java/com/shop/App.java::App contains code:method:src/main/java/com/shop/App.java::App.main @7',
      'code:class:src/main/java/com/shop/model/Item.java::Item contains code:variable:src/main/java/com/shop/model/Item.java::Item.name @4',
      'code:class:src/main/java/com/shop/model/Item.java::Item contains code:method:src/main/java/com/shop/model/Item.java::Item.constructor @6',
      'code:class:src/main/java/com/shop/model/Item.java::Item contains code:method:src/main/java/com/shop/model/Item.java::Item.getName @10',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart implements code:interface:src/main/java/com/shop/service/Countable.java::Countable @7',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart contains code:variable:src/main/java/com/shop/service/Cart.java::Cart.items @8',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart constructs code:external:java.util.ArrayList::ArrayList @8',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart contains code:method:src/main/java/com/shop/service/Cart.java::Cart.add @10',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart contains code:method:src/main/java/com/shop/service/Cart.java::Cart.log @15',
      'code:class:src/main/java/com/shop/service/Cart.java::Cart contains code:method:src/main/java/com/shop/service/Cart.java::Cart.count @19',
      'code:file:src/main/java/com/shop/App.java imports code:file:src/main/java/com/shop/model/Item.java @3',
      'code:file:src/main/java/com/shop/App.java imports code:file:src/main/java/com/shop/service/Cart.java @4',
      'code:file:src/main/java/com/shop/App.java contains code:class:src/main/java/com/shop/App.java::App @6',
      'code:file:src/main/java/com/shop/model/Item.java contains code:class:src/main/java/com/shop/model/Item.java::Item @3',
      'code:file:src/main/java/com/shop/service/Cart.java imports code:file:src/main/java/com/shop/model/Item.java @3',
      'code:file:src/main/java/com/shop/service/Cart.java imports code:external:java.util.ArrayList @4',
      'code:file:src/main/java/com/shop/service/Cart.java imports code:external:java.util.List @5',
      'code:file:src/main/java/com/shop/service/Cart.java contains code:class:src/main/java/com/shop/service/Cart.java::Cart @7',
      'code:file:src/main/java/com/shop/service/Countable.java contains code:interface:src/main/java/com/shop/service/Countable.java::Countable @3',
      'code:interface:src/main/java/com/shop/service/Countable.java::Countable contains code:method:src/main/java/com/shop/service/Countable.java::Countable.count @4',
      'code:method:src/main/java/com/shop/App.java::App.main constructs code:class:src/main/java/com/shop/service/Cart.java::Cart @8',
      'code:method:src/main/java/com/shop/App.java::App.main calls code:method:src/main/java/com/shop/service/Cart.java::Cart.add @9',
      'code:method:src/main/java/com/shop/App.java::App.main constructs code:class:src/main/java/com/shop/model/Item.java::Item @9',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.add has_param_type code:class:src/main/java/com/shop/model/Item.java::Item @10',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.add calls code:external:java.util.List::List.add @11',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.add calls code:method:src/main/java/com/shop/service/Cart.java::Cart.log @12',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.add calls code:method:src/main/java/com/shop/model/Item.java::Item.getName @12',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.count calls code:external:java.util.List::List.size @20',
      'code:method:src/main/java/com/shop/service/Cart.java::Cart.log calls code:external:(unresolved)::println @16',
    ],
  },
  rust: {
    nodes: [
      'class code:class:src/shapes.rs::Circle',
      'constant code:constant:src/shapes.rs::PI',
      'dependency code:dependency:serde',
      'file code:file:Cargo.toml',
      'file code:file:src/main.rs',
      'file code:file:src/shapes.rs',
      'file code:file:src/util.rs',
      'function code:function:src/main.rs::main',
      'function code:function:src/util.rs::report',
      'interface code:interface:src/shapes.rs::Shape',
      'method code:method:src/shapes.rs::Circle.area',
      'method code:method:src/shapes.rs::Circle.new',
      'method code:method:src/shapes.rs::Shape.area',
    ],
    edges: [
      'code:class:src/shapes.rs::Circle contains code:method:src/shapes.rs::Circle.new @12',
      'code:class:src/shapes.rs::Circle implements code:interface:src/shapes.rs::Shape @17',
      'code:class:src/shapes.rs::Circle contains code:method:src/shapes.rs::Circle.area @18',
      'code:file:Cargo.toml requires code:dependency:serde @6',
      'code:file:src/main.rs imports code:file:src/shapes.rs @1',
      'code:file:src/main.rs imports code:file:src/util.rs @2',
      'code:file:src/main.rs imports code:file:src/shapes.rs @4',
      'code:file:src/main.rs contains code:function:src/main.rs::main @6',
      'code:file:src/shapes.rs contains code:constant:src/shapes.rs::PI @1',
      'code:file:src/shapes.rs contains code:interface:src/shapes.rs::Shape @3',
      'code:file:src/shapes.rs contains code:class:src/shapes.rs::Circle @7',
      'code:file:src/util.rs contains code:function:src/util.rs::report @1',
      'code:function:src/main.rs::main calls code:method:src/shapes.rs::Circle.new @7',
      'code:function:src/main.rs::main calls code:method:src/shapes.rs::Circle.area @8',
      'code:function:src/main.rs::main calls code:function:src/util.rs::report @9',
      'code:interface:src/shapes.rs::Shape contains code:method:src/shapes.rs::Shape.area @4',
      'code:method:src/shapes.rs::Circle.new returns_type code:class:src/shapes.rs::Circle @12',
      'code:method:src/shapes.rs::Circle.new constructs code:class:src/shapes.rs::Circle @13',
    ],
  },
};

for (const [lang, expected] of Object.entries(EXPECTED)) {
  test(`the ${lang} fixture yields exactly its hand-checked nodes and edges`, async () => {
    const db = openDatabase(':memory:');
    const result = await new Indexer({ repo: `${FIXTURES}${lang}`, db }).run({});
    assert.equal(result.filesFailed, 0);
    const nodes = (
      db.prepare("SELECT uid, kind FROM graph_nodes WHERE kind != 'folder' ORDER BY uid").all() as {
        uid: string;
        kind: string;
      }[]
    ).map((r) => `${r.kind} ${r.uid}`);
    const edges = (
      db
        .prepare(
          `SELECT s.uid AS s, t.uid AS t, e.edge_type AS ty, e.line AS l FROM graph_edges e
           JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
           WHERE NOT (e.edge_type = 'contains' AND s.kind = 'folder') ORDER BY s.uid, e.line, e.col, t.uid`,
        )
        .all() as { s: string; t: string; ty: string; l: number }[]
    ).map((r) => `${r.s} ${r.ty} ${r.t} @${r.l}`);
    assert.deepEqual(nodes, expected.nodes);
    assert.deepEqual(edges, expected.edges);
    db.close();
  });
}

test('the other bundled languages give their files and top-level symbols', async () => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const repo = mkdtempSync(join(tmpdir(), 'cos-graph-generic-'));
  try {
    writeFileSync(
      join(repo, 'a.cs'),
      'namespace App.Core {\n  public class Svc { public void Run() {} }\n  interface IRepo {}\n}\n',
    );
    writeFileSync(
      join(repo, 'b.cpp'),
      'namespace ns {\nclass Foo { int x; };\nint add(int a, int b) { return a + b; }\n}\n',
    );
    writeFileSync(join(repo, 'c.rb'), 'module M\n  class K\n    def run; end\n  end\nend\n');
    writeFileSync(join(repo, 'd.php'), '<?php\nfunction f() {}\nclass C {}\n');
    writeFileSync(join(repo, 'e.sh'), 'greet() { echo hi; }\n');
    const db = openDatabase(':memory:');
    const r = await new Indexer({ repo, db }).run({});
    assert.equal(r.filesFailed, 0);
    const uids = db
      .prepare("SELECT uid FROM graph_nodes WHERE kind NOT IN ('folder', 'file') ORDER BY uid")
      .pluck()
      .all();
    assert.deepEqual(uids, [
      'code:class:a.cs::Svc',
      'code:class:b.cpp::Foo',
      'code:class:c.rb::K',
      'code:class:d.php::C',
      'code:function:b.cpp::add',
      'code:function:d.php::f',
      'code:function:e.sh::greet',
      'code:interface:a.cs::IRepo',
      'code:module:a.cs::App.Core',
      'code:module:b.cpp::ns',
      'code:module:c.rb::M',
    ]);
    db.close();
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});
