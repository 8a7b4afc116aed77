import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  CHUNK_TARGET_CHARS,
  chunkDocument,
  slugify,
  splitFrontMatter,
} from '../../../server/docs/chunker.ts';

const FIXTURES = new URL('../../fixtures/docs/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

test('guide.md chunks match the golden file (UPDATE_GOLDEN=1 rewrites it)', () => {
  const doc = chunkDocument('guide.md', read('guide.md'));
  const golden = new URL('guide.chunks.golden.json', FIXTURES);
  const actual = `${JSON.stringify(doc, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, actual);
  assert.equal(actual, readFileSync(golden, 'utf8'));
});

test('markdown splits at H1-H3, keeps the heading path, and leaves H4 and fenced "##" inside', () => {
  const doc = chunkDocument('guide.md', read('guide.md'));
  assert.equal(doc.title, 'Operator guide');
  assert.deepEqual(doc.frontMatter, {
    title: 'Operator guide',
    type: 'guide',
    tags: ['operations', 'sqlite'],
    owner: 'platform',
  });
  const source = doc.chunks.find((c) => c.anchor === 'from-source');
  assert.deepEqual(source?.headingPath, ['Operator guide', 'Installing', 'From source']);
  assert.match(source?.text ?? '', /## this is a shell comment/);
  assert.match(source?.text ?? '', /#### Deep detail/);
  assert.ok(!doc.chunks.some((c) => c.headingPath.includes('Deep detail')));
});

test('setext headings (=== and --- underlines) split like ATX ones; a thematic break does not', () => {
  const doc = chunkDocument(
    'old.md',
    'Old readme\n==========\n\nIntro text.\n\nUsage\n-----\n\nRun it.\n\n---\n\n- item\n---\n\nTwo lines\nof paragraph\n---\n',
  );
  assert.equal(doc.title, 'Old readme');
  assert.deepEqual(
    doc.chunks.map((c) => [c.headingPath, c.anchor]),
    [
      [['Old readme'], 'old-readme'],
      [['Old readme', 'Usage'], 'usage'],
    ],
  );
  assert.match(doc.chunks[1]!.text, /Run it\.\n\n---\n\n- item\n---/);
});

test('a long section is cut at paragraph breaks into chunks of about 2,000 characters', () => {
  const doc = chunkDocument('guide.md', read('guide.md'));
  const trouble = doc.chunks.filter((c) => c.anchor === 'troubleshooting');
  assert.equal(trouble.length, 2);
  assert.ok(trouble.every((c) => c.text.length <= CHUNK_TARGET_CHARS));
  assert.ok(trouble[0]!.text.startsWith('PARAGRAPH_ONE') && trouble[0]!.text.endsWith('snapshot.'));
  assert.ok(trouble[1]!.text.startsWith('PARAGRAPH_FIVE'));
  // A repeated heading gets GitHub's numbered anchor.
  assert.ok(doc.chunks.some((c) => c.anchor === 'troubleshooting-1'));
  assert.deepEqual(
    doc.chunks.map((c) => c.index),
    doc.chunks.map((_, i) => i),
  );
});

test('an unbroken paragraph (CJK, no spaces) is hard-cut at the target size', () => {
  const doc = chunkDocument('zh.md', `# 标题\n\n${'数据库连接池'.repeat(1000)}`);
  assert.equal(doc.chunks.length, 3);
  assert.ok(doc.chunks.every((c) => c.text.length <= CHUNK_TARGET_CHARS));
  assert.equal(doc.chunks.map((c) => c.text).join(''), '数据库连接池'.repeat(1000));
});

test('text and rst documents are chunked by paragraphs; rst takes its title from the underlined line', () => {
  const rst = chunkDocument('intro.rst', read('intro.rst'));
  assert.equal(rst.format, 'rst');
  assert.equal(rst.title, 'Intro');
  assert.deepEqual(rst.chunks[0]?.headingPath, []);
  const txt = chunkDocument('notes.txt', read('notes.txt'));
  assert.equal(txt.format, 'text');
  assert.equal(txt.title, 'Release checklist');
  const big = chunkDocument(
    'big.txt',
    Array.from({ length: 30 }, (_, i) => `para ${i} ${'x'.repeat(150)}`).join('\n\n'),
  );
  assert.ok(big.chunks.length >= 3);
  assert.ok(big.chunks.every((c) => c.text.length <= CHUNK_TARGET_CHARS));
});

test('front matter that is not a YAML mapping is reported, not indexed as text', () => {
  const bad = splitFrontMatter('---\ntitle: [unclosed\n---\n# Body\n');
  assert.deepEqual(bad.data, {});
  assert.match(bad.error ?? '', /not valid YAML/);
  assert.equal(bad.body, '# Body\n');
  const list = splitFrontMatter('---\n- a\n- b\n---\ntext');
  assert.match(list.error ?? '', /mapping/);
  const none = splitFrontMatter('# No front matter\n---\n');
  assert.equal(none.error, null);
  assert.equal(none.body, '# No front matter\n---\n');
  // Dates stay as written (core schema), so they round-trip through JSON unchanged.
  assert.deepEqual(splitFrontMatter('---\ndate: 2026-01-15\n---\n').data, { date: '2026-01-15' });
});

test('slugs follow GitHub: lower case, punctuation dropped, spaces to hyphens, any script kept', () => {
  assert.equal(slugify("ADR 1: Use SQLite for the hub's index"), 'adr-1-use-sqlite-for-the-hubs-index');
  assert.equal(slugify('东京机房'), '东京机房');
  assert.equal(slugify('Подключение к базе'), 'подключение-к-базе');
});
