// Shared parts of the end-to-end tests: the built SPA, Debian's Chromium through playwright-core, a
// page that records console errors, and screenshots under test-results/screenshots/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const CHROMIUM = process.env.COS_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');
const DIST_INDEX = join(ROOT, 'web', 'dist', 'index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const stat = statSync(full);
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(full) : stat.mtimeMs);
  }
  return newest;
}

/**
 * Builds web/dist when it is missing or older than web/src (CI builds it before `npm test`). Several
 * test files may run at once, so the build holds a lock directory and the others wait for it.
 */
export async function ensureSpaBuilt(): Promise<void> {
  const lock = join(ROOT, 'test-results', '.spa-build.lock');
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  const fresh = () =>
    existsSync(DIST_INDEX) &&
    statSync(DIST_INDEX).mtimeMs >=
      Math.max(newestMtime(join(ROOT, 'web', 'src')), statSync(join(ROOT, 'web', 'index.html')).mtimeMs);
  for (let waited = 0; !fresh(); waited += 200) {
    try {
      mkdirSync(lock);
    } catch {
      if (waited > 120_000) throw new Error(`another test has held ${lock} for 2 minutes; remove it`);
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (fresh()) break;
      const build = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the end-to-end tests drive Debian's Chromium. Install it with ` +
        '`apt-get update && apt-get install -y chromium` (CI does this in .ci/run), or point COS_CHROMIUM at a Chromium binary.',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
  close(): Promise<void>;
}

export async function openPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1280, height: 860 },
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return { page, context, errors, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Waits until the page shows no loading placeholder. (`networkidle` never comes: the page keeps the
 * live event stream open.)
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForFunction("!document.body.innerText.includes('Loading')", undefined, { timeout: 15_000 });
  await page.waitForTimeout(300);
}

export interface Harness {
  /** The page's URL on a local static server. */
  url: string;
  close(): Promise<void>;
}

/**
 * Builds a harness page of `web/bench/` (`<name>.html`: the graph canvas or its WebGL programs on made-up
 * data, outside the product build) with Vite into test-results/harness-<name>, and serves it.
 */
export async function serveHarness(name: string): Promise<Harness> {
  const [{ build }, { default: react }] = await Promise.all([import('vite'), import('@vitejs/plugin-react')]);
  const outDir = join(ROOT, 'test-results', `harness-${name}`);
  await build({
    configFile: false,
    root: join(ROOT, 'web'),
    base: '/',
    logLevel: 'warn',
    plugins: [react()],
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: { input: join(ROOT, 'web', 'bench', `${name}.html`) },
    },
  });
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = join(outDir, path);
    if (!file.startsWith(outDir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = file.endsWith('.js')
      ? 'text/javascript'
      : file.endsWith('.html')
        ? 'text/html'
        : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/bench/${name}.html`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
