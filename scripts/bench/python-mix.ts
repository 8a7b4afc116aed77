// A generated repository shaped like a Python-heavy project (issue 16): 874 Python modules, 370
// Markdown pages, 280 TypeScript/TSX files, 138 shell scripts and 338 files the indexer does not
// parse (JSON, YAML, TOML, text), about 2,000 in all. The Python is written the way Python is written
// today: packages with __init__.py, classes with decorators, dataclasses and type hints, docstrings,
// f-strings, async functions, nested functions and closures, comprehensions, context managers.
// Deterministic: the same seed writes the same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const MIX = { python: 874, markdown: 370, typescript: 280, shell: 138, other: 338 } as const;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'account order invoice customer ledger payment refund shipment stock price tax report audit user session token cache queue worker event metric alert budget policy tenant region store catalog'.split(
    ' ',
  );
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

function pythonModule(pkg: string, i: number, r: () => number, siblings: string[], dense: boolean): string {
  const w = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const a = w();
  const b = w();
  const Cls = `${cap(a)}${cap(b)}Service`;
  const Model = `${cap(b)}Record`;
  const other = siblings[Math.floor(r() * siblings.length)] ?? 'base';
  const lines: string[] = [
    `"""${cap(a)} ${b} handling for the ${pkg} package.`,
    '',
    `This module loads ${b} records, validates them against the ${a} policy and`,
    'publishes the result. It is generated for the indexer benchmark.',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    'import asyncio',
    'import logging',
    'from collections.abc import AsyncIterator, Callable, Iterable',
    'from contextlib import asynccontextmanager',
    'from dataclasses import dataclass, field',
    'from functools import lru_cache, wraps',
    'from typing import Any, Generic, Protocol, TypeVar',
    '',
    `from .${other} import ${cap(other.split('_')[0] ?? 'base')}Error, load_config`,
    `from ..${pkg === 'core' ? 'util' : 'core'}.base import BaseService`,
    '',
    'log = logging.getLogger(__name__)',
    'T = TypeVar("T")',
    '',
    '',
    'def retry(times: int = 3) -> Callable[[Callable[..., T]], Callable[..., T]]:',
    '    """Retry the wrapped call up to ``times`` times on ValueError."""',
    '',
    '    def decorator(fn: Callable[..., T]) -> Callable[..., T]:',
    '        @wraps(fn)',
    '        def wrapper(*args: Any, **kwargs: Any) -> T:',
    '            last: Exception | None = None',
    '            for attempt in range(times):',
    '                try:',
    '                    return fn(*args, **kwargs)',
    '                except ValueError as exc:  # noqa: PERF203',
    '                    last = exc',
    `                    log.warning(f"{fn.__name__} failed (attempt {attempt + 1}/{times}): {exc!r}")`,
    '            raise RuntimeError(f"gave up after {times} attempts") from last',
    '',
    '        return wrapper',
    '',
    '    return decorator',
    '',
    '',
    '@dataclass(frozen=True, slots=True)',
    `class ${Model}:`,
    `    """One ${b} as stored: identifiers, amounts and free-form tags."""`,
    '',
    '    id: int',
    '    name: str',
    '    amount: float = 0.0',
    '    tags: tuple[str, ...] = field(default_factory=tuple)',
    '    meta: dict[str, Any] = field(default_factory=dict)',
    '',
    '    @property',
    '    def label(self) -> str:',
    `        return f"{self.name} #{self.id:05d} ({self.amount:,.2f})"`,
    '',
    '    @classmethod',
    `    def parse(cls, raw: dict[str, Any]) -> ${Model}:`,
    '        tags = tuple(sorted({t.strip().lower() for t in raw.get("tags", []) if t}))',
    '        return cls(int(raw["id"]), str(raw["name"]), float(raw.get("amount", 0)), tags)',
    '',
    '',
    'class Repository(Protocol[T]):',
    '    def get(self, key: int) -> T | None: ...',
    '    def put(self, key: int, value: T) -> None: ...',
    '',
    '',
    `class ${Cls}(BaseService, Generic[T]):`,
    `    """Loads, checks and publishes ${b} records for one tenant."""`,
    '',
    '    default_limit: int = 100',
    '',
    `    def __init__(self, repo: Repository[${Model}], *, tenant: str, limit: int | None = None) -> None:`,
    '        super().__init__(name=f"' + a + '-{tenant}")',
    '        self._repo = repo',
    '        self.tenant = tenant',
    '        self.limit = limit or self.default_limit',
    `        self._seen: set[int] = set()`,
    '',
    '    def __repr__(self) -> str:',
    '        return f"<' + Cls + ' tenant={self.tenant!r} limit={self.limit}>"',
    '',
    '    @staticmethod',
    '    @lru_cache(maxsize=256)',
    '    def normalise(name: str) -> str:',
    '        return " ".join(part.capitalize() for part in name.split())',
    '',
    '    @retry(times=2)',
    `    def load(self, ids: Iterable[int]) -> list[${Model}]:`,
    '        """Every record among ``ids`` the repository knows, in order."""',
    `        found: list[${Model}] = []`,
    '        for key in ids:',
    '            if (record := self._repo.get(key)) is not None and key not in self._seen:',
    '                self._seen.add(key)',
    '                found.append(record)',
    '        return found[: self.limit]',
    '',
    `    def check(self, records: list[${Model}]) -> dict[str, list[int]]:`,
    '        config = load_config(self.tenant)',
    '        threshold = config.get("threshold", 1_000)',
    '',
    `        def too_large(r: ${Model}) -> bool:`,
    '            return r.amount > threshold',
    '',
    `        def tagged(tag: str) -> Callable[[${Model}], bool]:`,
    `            def has(r: ${Model}) -> bool:`,
    '                return tag in r.tags',
    '',
    '            return has',
    '',
    '        flagged = [r.id for r in records if too_large(r)]',
    '        urgent = [r.id for r in filter(tagged("urgent"), records)]',
    '        return {"flagged": flagged, "urgent": urgent, "ok": [r.id for r in records if r.id not in flagged]}',
    '',
    '    @asynccontextmanager',
    '    async def session(self) -> AsyncIterator[None]:',
    '        log.debug("opening %s session for %s", self.name, self.tenant)',
    '        try:',
    '            yield',
    '        finally:',
    '            await asyncio.sleep(0)',
    '',
    `    async def publish(self, records: list[${Model}]) -> int:`,
    '        async with self.session():',
    '            results = await asyncio.gather(*(self._send(r) for r in records), return_exceptions=True)',
    '        errors = [e for e in results if isinstance(e, Exception)]',
    '        if errors:',
    `            raise ${cap(other.split('_')[0] ?? 'base')}Error(f"{len(errors)} of {len(records)} failed")`,
    '        return len(results)',
    '',
    `    async def _send(self, record: ${Model}) -> str:`,
    '        await asyncio.sleep(0)',
    '        match record.tags:',
    '            case ("urgent", *rest):',
    '                return f"urgent:{record.id}:{len(rest)}"',
    '            case _:',
    '                return record.label',
    '',
  ];
  // A tail of helpers so sizes vary like real modules do (4–12 KB). The dense tail (the first version
  // of this corpus) packs about 18 calls into each KB; real Python spends its bytes on docstrings,
  // comments and names as well (see README: 3.8–7.4 calls per KB in pip, moto, IPython, networkx).
  if (dense) {
    const helpers = 4 + Math.floor(r() * 14);
    for (let h = 0; h < helpers; h++) {
      const fn = `${w()}_${w()}_${i}_${h}`;
      lines.push(
        '',
        `def ${fn}(values: list[float], *, scale: float = 1.0) -> dict[str, float]:`,
        `    """Summary statistics of ${w()} values, scaled."""`,
        '    if not values:',
        '        return {"count": 0.0}',
        '    total = sum(v * scale for v in values)',
        '    mean = total / len(values)',
        '    spread = max(values) - min(values)',
        `    log.info(f"${fn}: n={len(values)} mean={mean:.3f} spread={spread:.3f}")`,
        '    return {"count": float(len(values)), "total": total, "mean": mean, "spread": spread}',
        '',
      );
    }
  } else {
    const helpers = 1 + Math.floor(r() * 9);
    for (let h = 0; h < helpers; h++) {
      const fn = `${w()}_${w()}_${i}_${h}`;
      const subject = w();
      const unit = w();
      lines.push(
        '',
        `def ${fn}(values: list[float], *, scale: float = 1.0, limit: int | None = None) -> dict[str, float]:`,
        `    """Summarise the ${subject} values of one ${unit}, scaled.`,
        '',
        '    Args:',
        `        values: the raw ${subject} amounts, in the order they were recorded.`,
        '        scale: a factor applied to every value before it is summed.',
        '        limit: only the first ``limit`` values count; ``None`` means all of them.',
        '',
        '    Returns:',
        '        The count, total and mean of the values. An empty input gives a count of',
        '        zero and no other keys, so callers can tell "nothing recorded" apart.',
        '    """',
        '    if limit is not None:',
        '        values = values[:limit]',
        '    if not values:',
        '        return {"count": 0.0}',
        `    # Scaled before summing: the mean is reported in the ${unit}'s own unit.`,
        '    total = sum(v * scale for v in values)',
        '    mean = total / len(values)',
        `    log.debug("%s: n=%d mean=%.3f", "${fn}", len(values), mean)`,
        '    return {"count": float(len(values)), "total": total, "mean": mean}',
        '',
      );
    }
  }
  lines.push(
    '',
    'if __name__ == "__main__":',
    `    svc = ${Cls}(repo={}, tenant="demo")  # type: ignore[arg-type]`,
    '    print(svc.normalise("hello   world"))',
    '',
  );
  return lines.join('\n');
}

function markdownPage(i: number, r: () => number): string {
  const w = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const title = `${cap(w())} ${w()} guide ${i}`;
  const out = [
    '---',
    `title: ${title}`,
    `tags: [${w()}, ${w()}]`,
    `updated: 2026-0${1 + (i % 9)}-1${i % 10}`,
    '---',
    '',
    `# ${title}`,
    '',
    `How the ${w()} service handles ${w()} records. See [the API](../src/pkg${i % 30}/api_${i % 29}.py) and`,
    `\`${cap(w())}${cap(w())}Service.load\` for the entry points.`,
    '',
  ];
  const sections = 3 + Math.floor(r() * 6);
  for (let s = 0; s < sections; s++) {
    out.push(
      `## ${cap(w())} ${w()}`,
      '',
      `Each ${w()} is checked against the ${w()} policy before it is published.`,
    );
    out.push(
      '',
      '```python',
      `svc = ${cap(w())}Service(repo, tenant="t${s}")`,
      'svc.publish(svc.load([1, 2, 3]))',
      '```',
      '',
    );
    out.push(`- ${w()}: ${w()} ${w()}`, `- ${w()}: see [${w()}](#${w()})`, '');
  }
  return out.join('\n');
}

function tsFile(i: number, r: () => number, tsx: boolean): string {
  const w = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const name = `${cap(w())}${cap(w())}`;
  const body = [
    `import { useEffect, useState } from 'react';`,
    `import { fetchJson, type Page } from '../lib/api${i % 20}.ts';`,
    '',
    `export interface ${name}Row {`,
    '  id: number;',
    '  name: string;',
    '  amount: number;',
    '}',
    '',
    `export async function load${name}(page: number): Promise<Page<${name}Row>> {`,
    `  const res = await fetchJson<Page<${name}Row>>(\`/api/${w()}?page=\${page}\`);`,
    '  return { ...res, items: res.items.filter((r) => r.amount > 0) };',
    '}',
    '',
    `export class ${name}Store {`,
    `  private rows = new Map<number, ${name}Row>();`,
    `  put(row: ${name}Row): void {`,
    '    this.rows.set(row.id, row);',
    '  }',
    `  total(): number {`,
    '    return [...this.rows.values()].reduce((s, r) => s + r.amount, 0);',
    '  }',
    '}',
  ];
  if (tsx)
    body.push(
      '',
      `export function ${name}Table({ page }: { page: number }) {`,
      `  const [rows, setRows] = useState<${name}Row[]>([]);`,
      `  useEffect(() => void load${name}(page).then((p) => setRows(p.items)), [page]);`,
      '  return (',
      '    <table>',
      '      <tbody>',
      '        {rows.map((r) => (',
      '          <tr key={r.id}><td>{r.name}</td><td>{r.amount.toFixed(2)}</td></tr>',
      '        ))}',
      '      </tbody>',
      '    </table>',
      '  );',
      '}',
    );
  return `${body.join('\n')}\n`;
}

function shellScript(i: number): string {
  return [
    '#!/usr/bin/env bash',
    `# Deploy step ${i}: build, test and publish one service.`,
    'set -euo pipefail',
    '',
    'log() { printf "%s %s\\n" "$(date -u +%H:%M:%S)" "$*" >&2; }',
    '',
    'build() {',
    '  local target="${1:?target}"',
    '  log "building $target"',
    '  python -m build --outdir "dist/$target" "src/$target"',
    '}',
    '',
    'run_tests() {',
    '  for suite in unit integration; do',
    '    log "running $suite"',
    '    python -m pytest -q "tests/$suite" || return 1',
    '  done',
    '}',
    '',
    `case "\${1:-all}" in`,
    '  build) build "${2:-core}" ;;',
    '  test) run_tests ;;',
    '  all) build core && run_tests ;;',
    '  *) log "unknown step: $1"; exit 2 ;;',
    'esac',
    '',
  ].join('\n');
}

/**
 * Writes the mixed repository under `dir`; returns the number of files written. `scale` multiplies every
 * count of the mix (0.5: about 1,000 files in the same proportions); 1 writes issue 16's repository.
 * `dense` writes the corpus's first version (see pythonModule).
 */
export function writePythonMix(dir: string, { seed = 16, scale = 1, dense = false } = {}): number {
  const r = rng(seed);
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const mix = {
    python: count(MIX.python),
    markdown: count(MIX.markdown),
    typescript: count(MIX.typescript),
    shell: count(MIX.shell),
    other: count(MIX.other),
  };
  let n = 0;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    n++;
  };
  const packages = Array.from({ length: 30 }, (_, p) => (p === 0 ? 'core' : p === 1 ? 'util' : `pkg${p}`));
  const perPackage = new Map<string, string[]>();
  for (let i = 0; i < mix.python; i++) {
    const pkg = packages[i % packages.length]!;
    const list = perPackage.get(pkg) ?? [];
    const mod =
      i < packages.length ? '__init__' : i < packages.length * 2 ? 'base' : `${WORDS[i % WORDS.length]}_${i}`;
    list.push(mod);
    perPackage.set(pkg, list);
  }
  for (const [pkg, mods] of perPackage)
    for (const [k, mod] of mods.entries()) {
      const i = packages.indexOf(pkg) + k * packages.length;
      const text =
        mod === '__init__'
          ? `"""The ${pkg} package."""\n\nfrom .base import BaseService, load_config\n\n__all__ = ["BaseService", "load_config"]\n`
          : pythonModule(pkg, i, r, mods.filter((m) => m !== '__init__' && m !== mod).slice(0, 8), dense);
      write(`src/${pkg}/${mod}.py`, text);
    }
  for (let i = 0; i < mix.markdown; i++)
    write(`docs/${WORDS[i % WORDS.length]}/page-${i}.md`, markdownPage(i, r));
  for (let i = 0; i < mix.typescript; i++) {
    const tsx = i % 3 === 0;
    write(`web/src/features/f${i % 25}/view-${i}.${tsx ? 'tsx' : 'ts'}`, tsFile(i, r, tsx));
  }
  for (let i = 0; i < mix.shell; i++) write(`scripts/step-${i}.sh`, shellScript(i));
  for (let i = 0; i < mix.other; i++) {
    const kind = i % 4;
    if (kind === 0)
      write(`config/c${i}.json`, `${JSON.stringify({ id: i, name: `c${i}`, tags: ['a', 'b'] }, null, 2)}\n`);
    else if (kind === 1) write(`config/c${i}.yaml`, `id: ${i}\nname: c${i}\nenabled: true\n`);
    else if (kind === 2) write(`config/c${i}.toml`, `[service]\nid = ${i}\nname = "c${i}"\n`);
    else write(`data/notes-${i}.txt`, `notes ${i}\n`.repeat(20));
  }
  write(
    'pyproject.toml',
    '[project]\nname = "mix"\nversion = "0.1.0"\ndependencies = ["httpx>=0.27", "pydantic>=2"]\n',
  );
  write(
    'package.json',
    `${JSON.stringify({ name: 'mix-web', private: true, dependencies: { react: '19.3.1' } }, null, 2)}\n`,
  );
  return n;
}
