// The hub as a separate process (`cos serve`), for tests that kill it: kill -9, restart, look again.
import { type ChildProcess, spawn } from 'node:child_process';

const COS = new URL('../../server/bin/cos.mjs', import.meta.url).pathname;

export interface HubProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill9(): Promise<void>;
  stop(): Promise<number | null>;
}

/** `nodeArgs` go to node before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
export async function startHubProcess(
  repo: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<HubProcess> {
  const child = spawn(process.execPath, [...nodeArgs, COS, 'serve', '--port', '0', '--repo', repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, COS_RATE_LIMIT_RPS: '0', ...env },
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // A test that fails half-way must not leave a hub running (it would keep the test runner waiting).
  const reap = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', reap);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the hub did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /MCP\s+(http:\/\/\S+)\/mcp/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', () => reject(new Error(`the hub exited: ${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
