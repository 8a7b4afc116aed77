// Lexical scopes of a TypeScript/JavaScript file, for attributing calls as a reader would (issue 22):
// a call belongs to the innermost named function, method or declaration around it, and a name is
// looked up in the functions around the call before the file (a parameter shadows a module function;
// a nested function is called by its own name). One sweep over the nodes descendantsOfType found, in
// document order, keeps a stack of open frames: the scopes the declarations registered, plus one frame
// per anonymous function (which has no node of its own: its calls belong to the named frame around it).
import type { Node, Scope } from './common.ts';

/**
 * What a name bound in a function stands for: a declaration of this file, or a value of a known type
 * (or not); `init`, the expression an untyped `const`/`let` was declared with (`const s = getStore()`),
 * for the receiver chains the resolver follows (typescript.ts receiverChain).
 */
export type LocalBinding = { def: string } | { type: string | null; init?: Node };

export interface Frame {
  start: number;
  end: number;
  parent: Frame | undefined;
  /** The node calls made here come from: the innermost named declaration, or the file. */
  uid: string;
  /** Its qualified name ('' for the file): nested declarations are named under it. */
  qname: string;
  /** The scope this frame opened for (undefined for an anonymous function and the file). */
  scope: Scope | undefined;
  /** The class `this` is an instance of here (arrow functions keep their parent's). */
  cls: string | undefined;
  /** Whether this frame is a function's own: its parameters and local declarations bind here. */
  fn: boolean;
  /** Whether this frame or one around it is a function (declarations in it are not the module's). */
  inFn: boolean;
  bound: Map<string, LocalBinding> | undefined;
}

export class ScopeSweep {
  readonly file: Frame;
  private top: Frame;
  /** Registered scopes by start (outer first at equal starts), and the next one to open. */
  private readonly reg: Scope[];
  private next = 0;
  /** Scopes registered during the sweep, in the same order: few at a time, each opened soon after. */
  private readonly extra: Scope[] = [];

  constructor(fileUid: string, scopes: readonly Scope[]) {
    this.file = {
      start: 0,
      end: Number.POSITIVE_INFINITY,
      parent: undefined,
      uid: fileUid,
      qname: '',
      scope: undefined,
      cls: undefined,
      fn: false,
      inFn: false,
      bound: undefined,
    };
    this.top = this.file;
    this.reg = [...scopes].sort(byStart);
  }

  /** The innermost frame at `pos`, after opening the registered scopes that start at or before it. */
  at(pos: number): Frame {
    for (;;) {
      const a = this.reg[this.next];
      const b = this.extra[0];
      const s = a && (!b || byStart(a, b) <= 0) ? a : b;
      if (!s || s.start > pos) break;
      if (s === a) this.next++;
      else this.extra.shift();
      this.close(s.start);
      this.top = {
        start: s.start,
        end: s.end,
        parent: this.top,
        uid: s.uid,
        qname: s.qname ?? '',
        scope: s,
        cls: s.cls,
        fn: false,
        inFn: this.top.inFn,
        bound: undefined,
      };
    }
    this.close(pos);
    return this.top;
  }

  /** Scopes registered during the sweep (nested declarations): opened when the sweep reaches them. */
  adopt(scopes: readonly Scope[]): void {
    for (const s of scopes) {
      let i = this.extra.length;
      while (i > 0 && byStart(this.extra[i - 1]!, s) > 0) i--;
      this.extra.splice(i, 0, s);
    }
  }

  /** Whether the innermost frame is the scope registered for `n` itself. */
  isScopeOf(frame: Frame, n: Node): boolean {
    return frame.scope !== undefined && frame.start === n.startIndex && frame.end === n.endIndex;
  }

  /** Opens a frame for an anonymous function (or an anonymous class). */
  openAnonymous(n: Node, opts: { fn: boolean; keepThis: boolean }): Frame {
    const top = this.at(n.startIndex);
    this.top = {
      start: n.startIndex,
      end: n.endIndex,
      parent: top,
      uid: top.uid,
      qname: top.qname,
      scope: undefined,
      cls: opts.keepThis ? top.cls : undefined,
      fn: opts.fn,
      inFn: top.inFn || opts.fn,
      bound: undefined,
    };
    return this.top;
  }

  private close(pos: number): void {
    while (this.top !== this.file && this.top.end <= pos) this.top = this.top.parent!;
  }
}

const byStart = (a: Scope, b: Scope) => a.start - b.start || b.end - a.end;

/** Marks `frame` as the frame of function `fnNode` and binds its parameters. */
export function enterFunction(
  frame: Frame,
  fnNode: Node,
  typeOf: (ann: Node | null, name: string) => string | undefined,
): void {
  frame.fn = true;
  frame.inFn = true;
  const single = fnNode.childForFieldName('parameter'); // `x => …`
  if (single) {
    if (single.type === 'identifier') bind(frame, single.text, { type: null });
    return;
  }
  const params = fnNode.childForFieldName('parameters');
  if (!params) return;
  for (const p of params.namedChildren) {
    if (!p) continue;
    if (p.type === 'required_parameter' || p.type === 'optional_parameter') {
      const pat = p.childForFieldName('pattern');
      if (pat?.type === 'identifier')
        bind(frame, pat.text, { type: typeOf(p.childForFieldName('type'), pat.text) ?? null });
      else if (pat) for (const name of patternNames(pat)) bind(frame, name, { type: null });
    } else for (const name of patternNames(p)) bind(frame, name, { type: null });
  }
}

/** The innermost function frame at or around `frame` (where a declaration made there binds), if any. */
export function functionFrame(frame: Frame): Frame | undefined {
  for (let f: Frame | undefined = frame; f; f = f.parent) if (f.fn) return f;
  return undefined;
}

/** Binds `name` in a frame; a name bound twice with different meanings is a value of unknown type. */
export function bind(frame: Frame, name: string, what: LocalBinding): void {
  frame.bound ??= new Map();
  const prev = frame.bound.get(name);
  if (!prev) frame.bound.set(name, what);
  else if (!sameBinding(prev, what)) frame.bound.set(name, { type: null });
}

function sameBinding(a: LocalBinding, b: LocalBinding): boolean {
  if ('def' in a) return 'def' in b && a.def === b.def;
  // Two declarations of one name from two expressions (`const s = a()` in one block, `= b()` in another).
  if ('def' in b || a.init || b.init) return false;
  return a.type === b.type;
}

/** What `name` is bound to in the functions around `frame`, innermost first; undefined when none binds it. */
export function lookupLocal(frame: Frame, name: string): LocalBinding | undefined {
  for (let f: Frame | undefined = frame; f; f = f.parent) {
    const b = f.bound?.get(name);
    if (b) return b;
  }
  return undefined;
}

/** The names a binding pattern declares (`{ a, b: [c], d = 1, ...e }` → a, c, d, e). */
export function patternNames(n: Node, out: string[] = []): string[] {
  switch (n.type) {
    case 'identifier':
    case 'shorthand_property_identifier_pattern':
      out.push(n.text);
      break;
    case 'object_pattern':
    case 'array_pattern':
    case 'rest_pattern':
      for (const c of n.namedChildren) if (c) patternNames(c, out);
      break;
    case 'pair_pattern': {
      const v = n.childForFieldName('value');
      if (v) patternNames(v, out);
      break;
    }
    case 'object_assignment_pattern':
    case 'assignment_pattern': {
      const l = n.childForFieldName('left');
      if (l) patternNames(l, out);
      break;
    }
  }
  return out;
}
