// Python: classes, functions, methods, module-level names, imports (absolute, relative, aliased),
// calls (self.x(), module.f(), constructors), base classes and annotated parameter/return types.
import type { Tree } from 'web-tree-sitter';
import type { Extraction } from '../types.ts';
import { Builder, colOf, lineOf, type Node, signatureOf, syntaxError, VarTypes } from './common.ts';

export function extractPython(path: string, text: string, tree: Tree): Extraction {
  const b = new Builder(path, text);
  const root = tree.rootNode;
  const varTypes = new VarTypes();
  const noteType = (key: string, type: string | undefined) => varTypes.note(key, type);

  const typeRefs = (owner: string, t: Node | null, type: 'has_param_type' | 'returns_type') => {
    if (!t) return;
    const ids = t.type === 'identifier' ? [t] : t.descendantsOfType(['identifier', 'attribute']);
    for (const id of ids) {
      if (!id || id.parent?.type === 'attribute') continue;
      if (BUILTIN_TYPES.has(id.text)) continue;
      b.ref({ type, from: owner, name: id.text, line: lineOf(id), col: colOf(id) });
    }
  };

  const func = (n: Node, prefix: string, parent: string, cls?: string) => {
    const name = n.childForFieldName('name')?.text;
    if (!name) return;
    const body = n.childForFieldName('body');
    const sym = b.symbol(cls ? 'method' : 'function', prefix + name, n, {
      parent,
      signature: signatureOf(n, body, text).replace(/:$/, ''),
      ...(cls ? { cls } : {}),
    });
    for (const p of n.childForFieldName('parameters')?.namedChildren ?? []) {
      if (p?.type !== 'typed_parameter' && p?.type !== 'typed_default_parameter') continue;
      const t = p.childForFieldName('type');
      typeRefs(sym.uid, t, 'has_param_type');
      const pname =
        p.type === 'typed_parameter' ? p.namedChildren[0]?.text : p.childForFieldName('name')?.text;
      if (pname && t) noteType(pname, t.text);
    }
    typeRefs(sym.uid, n.childForFieldName('return_type'), 'returns_type');
  };

  const classDef = (n: Node, prefix: string, parent: string) => {
    const name = n.childForFieldName('name')?.text;
    if (!name) return;
    const qname = prefix + name;
    const body = n.childForFieldName('body');
    const cls = b.symbol('class', qname, n, {
      parent,
      signature: signatureOf(n, body, text).replace(/:$/, ''),
      cls: qname,
    });
    const bases: string[] = [];
    for (const s of n.childForFieldName('superclasses')?.namedChildren ?? []) {
      if (s?.type !== 'identifier' && s?.type !== 'attribute') continue;
      bases.push(s.text);
      b.ref({ type: 'inherits_from', from: cls.uid, name: s.text, line: lineOf(s), col: colOf(s) });
    }
    if (bases.length) {
      b.facts.bases ??= {};
      b.facts.bases[qname] = bases;
    }
    for (const c of body?.namedChildren ?? []) {
      const def = c?.type === 'decorated_definition' ? c.childForFieldName('definition') : c;
      if (def?.type === 'function_definition') func(def, `${qname}.`, cls.uid, qname);
      else if (def?.type === 'class_definition') classDef(def, `${qname}.`, cls.uid);
    }
  };

  for (const top of root.namedChildren) {
    if (!top) continue;
    const n = top.type === 'decorated_definition' ? top.childForFieldName('definition') : top;
    if (!n) continue;
    switch (n.type) {
      case 'import_statement':
        for (const nm of n.childrenForFieldName('name')) {
          if (!nm) continue;
          const isAlias = nm.type === 'aliased_import';
          const mod = isAlias ? nm.childForFieldName('name')?.text : nm.text;
          if (!mod) continue;
          const local = isAlias ? (nm.childForFieldName('alias')?.text ?? mod) : mod;
          b.ref({ type: 'imports', from: b.fileUid, name: '', module: mod, line: lineOf(n), col: colOf(n) });
          b.facts.bindings.push({ local, module: mod, imported: '*' });
        }
        break;
      case 'import_from_statement': {
        const mod = n.childForFieldName('module_name')?.text;
        if (!mod) break;
        const names = n.childrenForFieldName('name');
        if (/^\.+$/.test(mod) && names.length) {
          // `from . import a, b`: the package's submodules a and b are what is imported.
          for (const nm of names) {
            const sub = nm?.type === 'aliased_import' ? nm.childForFieldName('name')?.text : nm?.text;
            if (sub)
              b.ref({
                type: 'imports',
                from: b.fileUid,
                name: '',
                module: `${mod}${sub}`,
                line: lineOf(n),
                col: colOf(n),
              });
          }
        } else
          b.ref({ type: 'imports', from: b.fileUid, name: '', module: mod, line: lineOf(n), col: colOf(n) });
        if (names.length === 0) {
          // `from m import *`: every name of m is in scope; resolution treats it as a re-export.
          b.facts.reexports.push({ module: mod, imported: '*', exported: '*' });
        }
        for (const nm of names) {
          if (!nm) continue;
          const isAlias = nm.type === 'aliased_import';
          const imported = isAlias ? nm.childForFieldName('name')?.text : nm.text;
          if (!imported) continue;
          const local = isAlias ? (nm.childForFieldName('alias')?.text ?? imported) : imported;
          b.facts.bindings.push({ local, module: mod, imported });
        }
        break;
      }
      case 'function_definition':
        func(n, '', b.fileUid);
        break;
      case 'class_definition':
        classDef(n, '', b.fileUid);
        break;
      case 'expression_statement': {
        const a = n.namedChildren[0];
        if (a?.type !== 'assignment') break;
        const left = a.childForFieldName('left');
        if (left?.type !== 'identifier') break;
        const name = left.text;
        b.symbol(/^[A-Z][A-Z0-9_]*$/.test(name) ? 'constant' : 'variable', name, a, {
          signature: signatureOf(a, null, text),
        });
        const right = a.childForFieldName('right');
        if (right?.type === 'call') noteType(name, right.childForFieldName('function')?.text);
        break;
      }
    }
  }

  const scopeAt = b.scopeFinder();
  for (const c of root.descendantsOfType('call')) {
    if (!c) continue;
    const fn = c.childForFieldName('function');
    if (!fn) continue;
    const name = calleeName(fn);
    if (!name) continue;
    const scope = scopeAt(c.startIndex);
    const nameNode = fn.type === 'attribute' ? (fn.childForFieldName('attribute') ?? fn) : fn;
    const dot = name.lastIndexOf('.');
    const recv = dot > 0 ? name.slice(0, dot) : undefined;
    const recvType = recv && !recv.includes('.') ? (varTypes.get(recv) ?? undefined) : undefined;
    b.ref({
      type: 'calls',
      from: scope?.uid ?? b.fileUid,
      name: name === 'super.__init__' ? 'super' : name,
      line: lineOf(nameNode),
      col: colOf(nameNode),
      ...(scope?.cls ? { cls: scope.cls } : {}),
      ...(recvType ? { recvType } : {}),
    });
  }
  return b.result(syntaxError(root));
}

function calleeName(n: Node): string | undefined {
  if (n.type === 'identifier') return n.text;
  if (n.type === 'attribute') {
    const obj = n.childForFieldName('object');
    const attr = n.childForFieldName('attribute')?.text;
    if (!attr) return undefined;
    // super().m() → super.m, resolved against the enclosing class's bases.
    if (obj?.type === 'call' && obj.childForFieldName('function')?.text === 'super') return `super.${attr}`;
    const left = obj ? calleeName(obj) : undefined;
    return `${left ?? '~'}.${attr}`;
  }
  return undefined;
}

const BUILTIN_TYPES = new Set([
  'int',
  'str',
  'float',
  'bool',
  'bytes',
  'None',
  'object',
  'list',
  'dict',
  'set',
  'tuple',
  'Any',
  'Optional',
  'List',
  'Dict',
  'Set',
  'Tuple',
  'Union',
  'Callable',
  'Iterable',
  'Iterator',
  'type',
]);
