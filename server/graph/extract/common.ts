// Helpers shared by the tree-sitter extractors.
import type { Node } from 'web-tree-sitter';
import type { Extraction, FileFacts, GraphNode, NodeKind, Ref } from '../types.ts';
import { fileUid, symbolUid } from '../uid.ts';

export type { Node };

/** A one-line signature: the declaration's text up to its body, whitespace collapsed, at most 160 chars. */
export function signatureOf(node: Node, body: Node | null | undefined, text: string): string {
  const end = body ? body.startIndex : Math.min(node.endIndex, node.startIndex + 200);
  const s = text.slice(node.startIndex, end).replace(/\s+/g, ' ').trim();
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** A scope a reference can come from: its uid and its text range, for attributing calls to the innermost one. */
export interface Scope {
  uid: string;
  start: number;
  end: number;
  cls?: string;
  /** The symbol's qualified name: declarations nested in it are named under it (TypeScript). */
  qname?: string;
}

export class Builder {
  readonly nodes: GraphNode[] = [];
  private readonly byUid = new Map<string, GraphNode>();
  readonly facts: FileFacts = { refs: [], bindings: [], reexports: [] };
  readonly scopes: Scope[] = [];
  readonly fileUid: string;

  constructor(
    readonly path: string,
    readonly text: string,
    fileNode: { uid: string; kind: NodeKind } = { uid: fileUid(path), kind: 'file' },
  ) {
    this.fileUid = fileNode.uid;
    const lines = countLines(text);
    this.add({
      uid: this.fileUid,
      kind: fileNode.kind,
      label: basename(path),
      qualifiedName: path,
      startLine: 1,
      endLine: lines,
    });
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  add(node: GraphNode): GraphNode {
    const existing = this.byUid.get(node.uid);
    if (existing) {
      // Overloads and redeclarations share a uid: one node spanning them all.
      existing.startLine = Math.min(existing.startLine, node.startLine);
      existing.endLine = Math.max(existing.endLine, node.endLine);
      return existing;
    }
    this.byUid.set(node.uid, node);
    this.nodes.push(node);
    return node;
  }

  /** Adds a symbol node for a syntax node and registers it as a scope. */
  symbol(
    kind: NodeKind,
    qname: string,
    node: Node,
    opts: { parent?: string; signature?: string; cls?: string; label?: string; scope?: boolean } = {},
  ): GraphNode {
    const uid = symbolUid(kind, this.path, qname);
    const added = this.add({
      uid,
      kind,
      label: opts.label ?? qname.slice(qname.lastIndexOf('.') + 1),
      qualifiedName: qname,
      startLine: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      parent: opts.parent ?? this.fileUid,
      ...(opts.signature ? { signature: opts.signature } : {}),
    });
    if (opts.scope !== false) {
      const scope: Scope = { uid, start: node.startIndex, end: node.endIndex, qname };
      if (opts.cls) scope.cls = opts.cls;
      this.scopes.push(scope);
    }
    return added;
  }

  ref(ref: Ref): void {
    this.facts.refs.push(ref);
  }

  /** Innermost scope for each position, by a sweep over scopes sorted by start (nested intervals). */
  scopeFinder(): (index: number) => Scope | undefined {
    const sorted = [...this.scopes].sort((a, b) => a.start - b.start || b.end - a.end);
    return (index: number) => {
      // Binary search for the last scope starting at or before index, then walk back to one containing it.
      let lo = 0;
      let hi = sorted.length - 1;
      let best = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid]!.start <= index) {
          best = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      for (let i = best; i >= 0; i--) {
        const s = sorted[i]!;
        if (s.end >= index) return s;
      }
      return undefined;
    };
  }

  result(error?: string): Extraction {
    return error ? { nodes: this.nodes, facts: this.facts, error } : { nodes: this.nodes, facts: this.facts };
  }
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  // A final newline ends the last line; it does not start another.
  return text.endsWith('\n') && n > 1 ? n - 1 : n;
}

/**
 * The first syntax error, as `syntax error at line L, column C: unexpected "tok"` or `…: missing ";"`,
 * or undefined when the tree is clean. The position is where the parser gave up: the innermost error
 * at the start of the first erroneous region, not the statement around it.
 */
export function syntaxError(root: Node): string | undefined {
  if (!root.hasError) return undefined;
  const bad = findError(root);
  if (!bad) return 'syntax error';
  const p = bad.startPosition;
  return `syntax error at line ${p.row + 1}, column ${p.column + 1}: ${errorKind(bad)}`;
}

function errorKind(n: Node): string {
  if (n.isMissing) return `missing ${JSON.stringify(n.type)}`;
  // The first token the parser could not place.
  let first: Node | null = n;
  while (first && first.childCount > 0) first = first.child(0);
  const tok = (first ?? n).text.replace(/\s+/g, ' ');
  return `unexpected ${JSON.stringify(tok.length > 30 ? `${tok.slice(0, 30)}…` : tok)}`;
}

function findError(node: Node): Node | undefined {
  if (node.isMissing) return node;
  for (const child of node.children) {
    if (child?.hasError || child?.isMissing || child?.isError) {
      const found = findError(child);
      if (found) return found;
    }
  }
  return node.isError ? node : undefined;
}

/**
 * The type each variable (or field) is known to hold, for typing call receivers: a name seen with two
 * different types is ambiguous and stays unknown (null) rather than guessed.
 */
export class VarTypes {
  private readonly types = new Map<string, string | null>();

  note(key: string, type: string | undefined): void {
    if (!type) return;
    const prev = this.types.get(key);
    this.types.set(key, prev === undefined || prev === type ? type : null);
  }

  get(key: string): string | null | undefined {
    return this.types.get(key);
  }

  /** The names with one type, as a plain record (undefined when there are none). */
  known(): Record<string, string> | undefined {
    let out: Record<string, string> | undefined;
    for (const [k, t] of this.types) {
      if (t === null) continue;
      out ??= {};
      out[k] = t;
    }
    return out;
  }
}

export const lineOf = (n: Node): number => n.startPosition.row + 1;
export const colOf = (n: Node): number => n.startPosition.column + 1;
