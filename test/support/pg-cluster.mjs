// A throwaway PostgreSQL cluster for tests and benchmarks: Debian's server binaries, `initdb` into a
// temporary directory (as the `postgres` user when run as root: initdb refuses root), listening only on
// 127.0.0.1 at a free port with its socket in that directory, password authentication over TCP, and
// removed when stopped. Plain JavaScript so scripts/run-tests.mjs can start one cluster for a whole run
// without tsx; test/support/postgres.ts is the typed face the tests use.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PG_USER = 'cos';
/** Not a secret: a throwaway cluster's, and the tests check it never appears in what the hub shows. */
export const PG_PASSWORD = 'cos-test-pw-7f3a9c';

/** The newest installed server's bin directory, or an Error naming the package to install. */
export function pgBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      "PostgreSQL's server is not installed: apt-get install -y postgresql (the team tests start a throwaway cluster)",
    );
  return join(root, versions[0], 'bin');
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(bin, args) {
  const command = asRoot ? 'runuser' : bin;
  const argv = asRoot ? ['-u', 'postgres', '--', bin, ...args] : args;
  const out = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed (${out.status}): ${out.stderr || out.stdout}`);
  return out.stdout;
}

/** A CA and a server certificate for 127.0.0.1/localhost signed by it, made with openssl in `dir`. */
function makeCertificates(dir) {
  const at = (f) => join(dir, f);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=cos test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
  );
  writeFileSync(at('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    at('san.ext'),
    '-out',
    at('server.crt'),
  );
  chmodSync(at('server.key'), 0o600);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    for (const f of ['server.key', 'server.crt']) chownSync(at(f), uid, gid);
  }
  return { ca: at('ca.pem'), cert: at('server.crt'), key: at('server.key') };
}

/**
 * Starts a new cluster (`{ tls: true }`: TLS only, with a certificate of a CA of its own). Returns { host, port, dir, adminUrl, url(db), stop(), pause(), resume() }:
 * pause() stops the server keeping its data (a database that goes away under running hubs), resume()
 * starts it again on the same port.
 */
export async function startCluster(options = {}) {
  const bin = pgBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'cos-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(dir, 0o700);
  run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    PG_USER,
    '--pwfile',
    pwfile,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const port = await freePort();
  const tls = options.tls ? makeCertificates(dir) : undefined;
  if (tls) {
    // TCP without TLS refused outright: what the README tells a team to set up.
    const hba = join(data, 'pg_hba.conf');
    writeFileSync(hba, `hostnossl all all 0.0.0.0/0 reject\n${readFileSync(hba, 'utf8')}`);
  }
  const settings = [
    '-c listen_addresses=127.0.0.1',
    `-p ${port}`,
    `-k ${dir}`,
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
    '-c shared_buffers=64MB',
    ...(tls ? ['-c ssl=on', `-c ssl_cert_file=${tls.cert}`, `-c ssl_key_file=${tls.key}`] : []),
  ].join(' ');
  const ctl = (action) =>
    run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', '60', action]);
  ctl('start');
  const query = tls ? `?sslmode=verify-full&sslrootcert=${encodeURIComponent(tls.ca)}` : '';
  const adminUrl = `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres${query}`;
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    dir,
    /** With { tls: true }: the CA that signed the server's certificate (for sslrootcert). */
    ca: tls?.ca,
    adminUrl,
    url: (db) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${db}${query}`,
    /** Runs SQL as the cluster's superuser through psql on the socket (no driver needed). */
    psql(sql, db = 'postgres') {
      return run(join(bin, 'psql'), ['-h', dir, '-p', String(port), '-U', PG_USER, '-d', db, '-Atqc', sql]);
    },
    pause() {
      ctl('stop');
    },
    resume() {
      ctl('start');
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped (a test paused it and failed before resuming).
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
