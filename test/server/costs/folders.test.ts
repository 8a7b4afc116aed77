// The folder rule: a hook payload's transcript_path is read only when its real path is inside the
// client's own transcript folder, a regular file of the client's kind. Forged paths (outside, `..`,
// symlinks planted in the folder, another client's folder, a folder named like a transcript, a FIFO)
// get nothing read, through the hub as well: the hook is answered as always and no usage appears.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkTranscript, transcriptRoots } from '../../../server/costs/folders.ts';
import { fixture } from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let home: string;
let outside: string;
let roots: ReturnType<typeof transcriptRoots>;
let inside: string;

const usageLine = JSON.stringify({
  type: 'assistant',
  requestId: 'req_1',
  timestamp: '2026-12-01T10:00:00Z',
  message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage: { input_tokens: 1000, output_tokens: 1000 } },
});

before(() => {
  home = mkdtempSync(join(tmpdir(), 'cos-folders-home-'));
  outside = mkdtempSync(join(tmpdir(), 'cos-folders-outside-'));
  roots = transcriptRoots({ HOME: home });
  const project = join(home, '.claude', 'projects', '-repo');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, '.codex', 'sessions', '2026', '12', '01'), { recursive: true });
  inside = join(project, 'a.jsonl');
  writeFileSync(inside, `${usageLine}\n`);
  writeFileSync(join(outside, 'secret.jsonl'), `${usageLine}\n`);
  writeFileSync(join(outside, 'id_ed25519'), 'PRIVATE KEY\n');
  symlinkSync(join(outside, 'secret.jsonl'), join(project, 'planted.jsonl'));
  symlinkSync(outside, join(project, 'linked-folder'));
  mkdirSync(join(project, 'folder.jsonl'));
  writeFileSync(join(project, 'notes.txt'), usageLine);
  execFileSync('mkfifo', [join(project, 'pipe.jsonl')]);
});
after(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('which transcripts the hub may read', () => {
  test('the default folders follow HOME; CLAUDE_CONFIG_DIR and CODEX_HOME name the configuration folders', () => {
    assert.deepEqual(roots['claude-code'], [
      join(home, '.claude', 'projects'),
      join(home, '.config', 'claude', 'projects'),
    ]);
    assert.deepEqual(roots.codex, [join(home, '.codex', 'sessions')]);
    assert.deepEqual(roots.gemini, [join(home, '.gemini', 'tmp')]);
    const set = transcriptRoots({
      HOME: home,
      CLAUDE_CONFIG_DIR: '/a/claude, /b/claude',
      CODEX_HOME: '/c/codex',
    });
    assert.deepEqual(set['claude-code'], ['/a/claude/projects', '/b/claude/projects']);
    assert.deepEqual(set.codex, ['/c/codex/sessions']);
  });

  test('a transcript in its client’s folder is read, as its real path', () => {
    const ok = checkTranscript(inside, 'claude-code', roots);
    assert.equal(ok.ok, true);
    assert.equal(ok.ok && ok.client, 'claude-code');
    // 'unknown' (a client the hook did not name): whichever client's folder holds it.
    assert.equal(checkTranscript(inside, 'unknown', roots).ok, true);
    // A path that reaches it through `..` is its real path all the same.
    const dotted = join(home, '.claude', 'projects', '-repo', '..', '-repo', 'a.jsonl');
    assert.equal(checkTranscript(dotted, 'claude-code', roots).ok, true);
  });

  test('forged paths get nothing read, each with its reason', () => {
    const project = join(home, '.claude', 'projects', '-repo');
    const cases: [string, string, RegExp][] = [
      ['/etc/passwd', 'claude-code', /outside the/],
      [join(outside, 'secret.jsonl'), 'claude-code', /outside the/],
      [
        join(project, '..', '..', '..', '..', '..', outside.slice(1), 'id_ed25519'),
        'claude-code',
        /outside the/,
      ],
      [join(project, 'planted.jsonl'), 'claude-code', /outside the/],
      [join(project, 'linked-folder', 'secret.jsonl'), 'claude-code', /outside the/],
      [join(project, 'folder.jsonl'), 'claude-code', /regular file/],
      [join(project, 'pipe.jsonl'), 'claude-code', /regular file/],
      [join(project, 'notes.txt'), 'claude-code', /not a claude-code transcript/],
      [inside, 'codex', /outside the/],
      [join(project, 'missing.jsonl'), 'claude-code', /does not exist/],
      ['relative/a.jsonl', 'claude-code', /absolute/],
      [`${inside}\0.jsonl`, 'claude-code', /absolute/],
    ];
    for (const [path, client, reason] of cases) {
      const r = checkTranscript(path, client, roots);
      assert.equal(r.ok, false, path);
      assert.match(r.ok ? '' : r.reason, reason, path);
    }
  });
});

describe('through the hub', () => {
  let t: TestHub;
  before(async () => {
    t = await startTestHub({ env: { HOME: home, COS_RATE_LIMIT_RPS: '0' } });
  });
  after(() => t.close());

  test('a hook naming a file outside the folders is answered as always, and nothing is read from it', async () => {
    const forged = [
      join(outside, 'secret.jsonl'),
      join(home, '.claude', 'projects', '-repo', 'planted.jsonl'),
      join(home, '.claude', 'projects', '-repo', 'linked-folder', 'secret.jsonl'),
    ];
    for (const [i, path] of forged.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/hooks/events?client=claude-code',
        headers: { host: '127.0.0.1', 'content-type': 'application/json' },
        payload: fixture('claude-code', 'stop', t.dir, { session_id: `forger-${i}`, transcript_path: path }),
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    await t.hub.services.costs.idle();
    assert.deepEqual(t.hub.services.costs.transcripts(), []);
    const r = await t.app.inject({ method: 'GET', url: '/api/costs', headers: { host: '127.0.0.1' } });
    assert.equal(r.json().data.total.records, 0);

    // The same payload naming the real transcript is read.
    await t.app.inject({
      method: 'POST',
      url: '/api/hooks/events?client=claude-code',
      headers: { host: '127.0.0.1', 'content-type': 'application/json' },
      payload: fixture('claude-code', 'stop', t.dir, { session_id: 'honest', transcript_path: inside }),
    });
    await t.hub.services.costs.idle();
    const read = await t.app.inject({ method: 'GET', url: '/api/costs', headers: { host: '127.0.0.1' } });
    assert.equal(read.json().data.total.records, 1);
  });
});
