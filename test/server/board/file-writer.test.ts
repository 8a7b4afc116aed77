import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { installTemp, isTempName, releaseOld } from '../../../server/board/atomic-write.ts';
import { FileWriter } from '../../../server/board/file-writer.ts';

const withWriter = async (fn: (dir: string, writer: FileWriter) => Promise<void>, slots?: number) => {
  const dir = mkdtempSync(join(tmpdir(), 'cos-file-writer-'));
  const writer = new FileWriter(dir, { slots });
  try {
    await fn(dir, writer);
  } finally {
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('the file writer', () => {
  it('hands install a hidden temp file holding the text, and answers with what install returned', () =>
    withWriter(async (dir, writer) => {
      const path = join(dir, 'TASK-1-a.md');
      writeFileSync(path, 'one');
      const answer = await writer.write(path, 'two', false, (tmp, held) => {
        assert.equal(held, null);
        assert.equal(join(tmp, '..'), dir, 'beside the target, so the rename stays on one filesystem');
        assert.ok(isTempName(basename(tmp)));
        assert.equal(readFileSync(tmp, 'utf8'), 'two');
        assert.equal(readFileSync(path, 'utf8'), 'one', 'nothing visible changes before the install');
        installTemp(tmp, path, 'replace');
        return 42;
      });
      assert.equal(answer, 42);
      assert.equal(readFileSync(path, 'utf8'), 'two');
      assert.deepEqual(readdirSync(dir), ['TASK-1-a.md']);
    }));

  it('holds the old file under a second name until install lets it go', () =>
    withWriter(async (dir, writer) => {
      const path = join(dir, 'TASK-2-b.md');
      writeFileSync(path, 'old');
      const inode = statSync(path).ino;
      let heldName: string | null = null;
      await writer.write(path, 'new', true, (tmp, held) => {
        assert.ok(held !== null && isTempName(basename(held)));
        heldName = held;
        installTemp(tmp, path, 'replace');
        assert.equal(statSync(held).ino, inode, 'the old inode outlives the rename');
        assert.equal(readFileSync(held, 'utf8'), 'old');
        releaseOld(held);
      });
      assert.equal(readFileSync(path, 'utf8'), 'new');
      for (let i = 0; i < 100 && heldName && existsSync(heldName); i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(readdirSync(dir), ['TASK-2-b.md']);
    }));

  it('settles each write on its own: one install that throws fails only its write', () =>
    withWriter(async (dir, writer) => {
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => {
          const path = join(dir, `TASK-${i}-x.md`);
          return writer.write(path, `text ${i}`, false, (tmp) => {
            if (i === 7) throw new Error('refused');
            installTemp(tmp, path, 'create');
            return i;
          });
        }),
      );
      results.forEach((r, i) => {
        if (i === 7) assert.equal(r.status === 'rejected' && (r.reason as Error).message, 'refused');
        else assert.deepEqual(r, { status: 'fulfilled', value: i });
      });
      for (let i = 0; i < 30; i++)
        if (i !== 7) assert.equal(readFileSync(join(dir, `TASK-${i}-x.md`), 'utf8'), `text ${i}`);
    }));

  it('finishes writes beyond its shared slots by their messages, and reuses the slots', () =>
    withWriter(async (dir, writer) => {
      for (let round = 0; round < 3; round++) {
        const values = await Promise.all(
          Array.from({ length: 25 }, (_, i) => {
            const path = join(dir, `TASK-${i}-r.md`);
            return writer.write(path, `${round}/${i}`, round > 0, (tmp, held) => {
              installTemp(tmp, path, 'replace');
              releaseOld(held);
              return readFileSync(path, 'utf8');
            });
          }),
        );
        assert.deepEqual(
          values,
          Array.from({ length: 25 }, (_, i) => `${round}/${i}`),
        );
      }
    }, 4));

  it('fails a write the file system refuses with its error code, and writes again after', () =>
    withWriter(async (dir, writer) => {
      let installed = false;
      await assert.rejects(
        writer.write(join(dir, 'missing', 'TASK-1-z.md'), 'text', false, () => {
          installed = true;
        }),
        (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
      );
      assert.equal(installed, false, 'install never runs for a temp file that is not durable');
      const path = join(dir, 'TASK-2-z.md');
      await writer.write(path, 'fine', false, (tmp) => installTemp(tmp, path, 'create'));
      assert.equal(readFileSync(path, 'utf8'), 'fine');
    }));

  it('installs a write whose fsync finished during a busy turn at the end of that turn, not a turn later', () =>
    withWriter(async (dir, writer) => {
      const path = join(dir, 'TASK-1-t.md');
      await writer.write(path, 'warm-up', false, (tmp) => installTemp(tmp, path, 'create')); // thread started
      // From here on, in a socket's callback: the poll phase of a turn, as a call to the hub is.
      await new Promise<void>((resolve) => {
        const server = createServer((socket) =>
          socket.once('data', () => {
            socket.destroy();
            server.close();
            resolve();
          }),
        ).listen(0, '127.0.0.1', () => {
          const port = (server.address() as { port: number }).port;
          const client = connect(port, '127.0.0.1', () => client.end('go'));
        });
      });
      const order: string[] = [];
      const done = writer.write(path, 'busy', false, (tmp) => {
        installTemp(tmp, path, 'replace');
        order.push('installed');
      });
      // The rest of a busy turn: the fsync finishes meanwhile, but its message waits for the next poll.
      const until = performance.now() + 300;
      while (performance.now() < until) {}
      setImmediate(() => order.push('end of this turn'));
      setTimeout(() => order.push('next turn'), 0);
      await done;
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(order, ['installed', 'end of this turn', 'next turn']);
    }));

  it('keeps the process alive while a write is in flight, and lets it exit when idle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cos-file-writer-'));
    try {
      const script = `
        import { FileWriter } from ${JSON.stringify(new URL('../../../server/board/file-writer.ts', import.meta.url).pathname)};
        const writer = new FileWriter(${JSON.stringify(dir)});
        writer.write(${JSON.stringify(join(dir, 'TASK-1-p.md'))}, 'text', false, () => 'installed')
          .then((v) => process.stdout.write(v));`;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(out, 'installed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
