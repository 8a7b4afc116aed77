// One file's extraction, start to finish, in whichever thread runs it: an extraction helper, or the
// indexer's own thread when it has no helper (one core).
import { createHash } from 'node:crypto';
import { ConfinedRoot } from '../fs/confined.ts';
import { extractFile } from './extract/index.ts';
import { encodeFacts } from './facts.ts';
import type { ExtractJob, ExtractModel, ExtractOutcome } from './pool.ts';
import type { Extraction } from './types.ts';

const roots = new Map<string, ConfinedRoot>();
const confinedRoot = (root: string): ConfinedRoot => {
  const known = roots.get(root);
  if (known) return known;
  const made = new ConfinedRoot(root);
  roots.set(root, made);
  return made;
};

/**
 * One file, start to finish. Serializing here costs the helper the JSON it would otherwise cost the
 * indexer thread, hands back a few flat strings instead of an object graph to clone, and leaves no
 * parser string (a slice that pins the whole source text) in anything the indexer keeps.
 */
export async function extractJob(root: string, job: ExtractJob): Promise<ExtractOutcome> {
  // Read through the confinement, not by path: the file may have become a symlink since it was walked.
  const text = confinedRoot(root).readText(job.path);
  if (text === undefined) return { status: 'unreadable' };
  const hash = createHash('sha1').update(text).digest('hex');
  if (job.known === hash) return { status: 'unchanged', hash };
  const t0 = performance.now();
  let ex: Extraction;
  try {
    ex = await extractFile(job.path, job.language, text);
  } catch (err) {
    ex = {
      nodes: [],
      facts: { refs: [], bindings: [], reexports: [] },
      error: `extraction failed: ${(err as Error).message}`,
    };
  }
  const { refs: _refs, ...meta } = ex.facts;
  const out: ExtractOutcome = {
    status: 'extracted',
    hash,
    ms: performance.now() - t0,
    model: JSON.stringify({ nodes: ex.nodes, meta } satisfies ExtractModel),
    facts: encodeFacts(ex.facts),
  };
  if (ex.error !== undefined) out.error = ex.error;
  return out;
}
