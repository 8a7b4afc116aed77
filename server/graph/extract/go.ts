// Go: package, imports (aliased, dotted paths), functions, methods (as Type.Method), structs (class),
// interfaces, named types, package-level const/var; calls through package aliases, receivers and the
// package scope; composite literals as constructions; embedded structs as inheritance.
import type { Tree } from 'web-tree-sitter';
import type { Extraction } from '../types.ts';
import { Builder, colOf, lineOf, type Node, signatureOf, syntaxError, VarTypes } from './common.ts';

export function extractGo(path: string, text: string, tree: Tree): Extraction {
  const b = new Builder(path, text);
  const root = tree.rootNode;
  const receivers = new Map<string, string>();
  const varTypes = new VarTypes();
  const noteType = (key: string, type: string | undefined) => varTypes.note(key, type);

  const typeRefs = (owner: string, t: Node | null, type: 'has_param_type' | 'returns_type') => {
    if (!t) return;
    const ids =
      t.type === 'type_identifier' ? [t] : t.descendantsOfType(['type_identifier', 'qualified_type']);
    for (const id of ids) {
      if (!id || id.parent?.type === 'qualified_type' || GO_BUILTINS.has(id.text)) continue;
      b.ref({ type, from: owner, name: id.text, line: lineOf(id), col: colOf(id) });
    }
  };
  const params = (owner: string, n: Node) => {
    for (const p of n.childForFieldName('parameters')?.namedChildren ?? []) {
      const t = p?.childForFieldName('type');
      if (!p || !t) continue;
      typeRefs(owner, t, 'has_param_type');
      const nm = p.childForFieldName('name')?.text;
      if (nm) noteType(nm, baseType(t));
    }
    typeRefs(owner, n.childForFieldName('result'), 'returns_type');
  };

  for (const n of root.namedChildren) {
    if (!n) continue;
    switch (n.type) {
      case 'package_clause':
        b.facts.pkg = n.namedChildren[0]?.text ?? '';
        break;
      case 'import_declaration':
        for (const spec of n.descendantsOfType('import_spec')) {
          const p = spec?.childForFieldName('path');
          if (!spec || !p) continue;
          const mod = p.text.slice(1, -1);
          const alias = spec.childForFieldName('name')?.text;
          b.ref({
            type: 'imports',
            from: b.fileUid,
            name: '',
            module: mod,
            line: lineOf(spec),
            col: colOf(spec),
          });
          if (alias === '_' || alias === '.') continue;
          const local =
            alias ??
            mod
              .split('/')
              .filter((s) => !/^v\d+$/.test(s))
              .pop() ??
            mod;
          b.facts.bindings.push({ local, module: mod, imported: '*' });
        }
        break;
      case 'function_declaration': {
        const name = n.childForFieldName('name')?.text;
        if (!name) break;
        const fn = b.symbol('function', name, n, {
          signature: signatureOf(n, n.childForFieldName('body'), text),
        });
        params(fn.uid, n);
        break;
      }
      case 'method_declaration': {
        const name = n.childForFieldName('name')?.text;
        const recv = n.childForFieldName('receiver')?.namedChildren[0];
        const recvType = recv ? baseType(recv.childForFieldName('type')) : undefined;
        if (!name || !recvType) break;
        const m = b.symbol('method', `${recvType}.${name}`, n, {
          parent: `code:class:${path}::${recvType}`,
          signature: signatureOf(n, n.childForFieldName('body'), text),
          cls: recvType,
        });
        const recvName = recv?.childForFieldName('name')?.text;
        if (recvName) receivers.set(m.uid, recvName);
        params(m.uid, n);
        break;
      }
      case 'type_declaration':
        for (const spec of n.namedChildren) {
          if (spec?.type !== 'type_spec' && spec?.type !== 'type_alias') continue;
          const name = spec.childForFieldName('name')?.text;
          const t = spec.childForFieldName('type');
          if (!name) continue;
          const kind =
            t?.type === 'struct_type' ? 'class' : t?.type === 'interface_type' ? 'interface' : 'type';
          const sym = b.symbol(kind, name, spec, { signature: signatureOf(spec, null, text), cls: name });
          if (t?.type === 'struct_type') {
            for (const f of t.descendantsOfType('field_declaration')) {
              if (!f || f.childForFieldName('name')) continue;
              const et = baseType(f.childForFieldName('type'));
              if (et) {
                b.ref({ type: 'inherits_from', from: sym.uid, name: et, line: lineOf(f), col: colOf(f) });
                b.facts.bases ??= {};
                const list = b.facts.bases[name] ?? [];
                list.push(et);
                b.facts.bases[name] = list;
              }
            }
          }
        }
        break;
      case 'const_declaration':
      case 'var_declaration':
        for (const spec of n.namedChildren) {
          for (const id of spec?.childrenForFieldName('name') ?? []) {
            if (id && spec)
              b.symbol(n.type === 'const_declaration' ? 'constant' : 'variable', id.text, spec, {
                signature: signatureOf(spec, null, text),
                scope: false,
              });
          }
        }
        break;
    }
  }
  // Methods declared before their type: point them at the type now that every type is known.
  const typeUids = new Set(b.nodes.map((x) => x.uid));
  for (const node of b.nodes) {
    if (node.kind === 'method' && node.parent && !typeUids.has(node.parent)) {
      const alt = [...typeUids].find(
        (u) => u.endsWith(`::${node.qualifiedName.split('.')[0]}`) && u.startsWith('code:'),
      );
      node.parent = alt ?? b.fileUid;
    }
  }

  // Locals declared with a type (`var s *store.Store`), so s.Add() resolves.
  for (const spec of root.descendantsOfType('var_spec')) {
    const t = baseType(spec?.childForFieldName('type'));
    for (const id of spec?.childrenForFieldName('name') ?? []) if (id && t) noteType(id.text, t);
  }

  const scopeAt = b.scopeFinder();
  for (const c of root.descendantsOfType(['call_expression', 'composite_literal'])) {
    if (!c) continue;
    const scope = scopeAt(c.startIndex);
    const from = scope?.uid ?? b.fileUid;
    if (c.type === 'composite_literal') {
      const t = c.childForFieldName('type');
      if (t?.type === 'type_identifier' || t?.type === 'qualified_type')
        b.ref({ type: 'constructs', from, name: t.text, line: lineOf(t), col: colOf(t) });
      continue;
    }
    const fn = c.childForFieldName('function');
    if (!fn) continue;
    let name: string | undefined;
    let nameNode = fn;
    if (fn.type === 'identifier') name = fn.text;
    else if (fn.type === 'selector_expression') {
      const op = fn.childForFieldName('operand');
      const field = fn.childForFieldName('field');
      if (!field) continue;
      nameNode = field;
      const recv = scope ? receivers.get(scope.uid) : undefined;
      if (op?.type === 'identifier')
        name = op.text === recv ? `this.${field.text}` : `${op.text}.${field.text}`;
      else if (op?.type === 'selector_expression') name = `${op.text}.${field.text}`;
      else name = `~.${field.text}`;
    }
    if (!name || GO_BUILTIN_FUNCS.has(name)) continue;
    const dot = name.indexOf('.');
    const head = dot > 0 ? name.slice(0, dot) : undefined;
    const recvType =
      head && head !== 'this' && !name.slice(dot + 1).includes('.') ? varTypes.get(head) : undefined;
    b.ref({
      type: 'calls',
      from,
      name,
      line: lineOf(nameNode),
      col: colOf(nameNode),
      ...(scope?.cls ? { cls: scope.cls } : {}),
      ...(recvType ? { recvType } : {}),
    });
  }
  return b.result(syntaxError(root));
}

function baseType(t: Node | null | undefined): string | undefined {
  let n = t;
  while (n && (n.type === 'pointer_type' || n.type === 'generic_type')) n = n.namedChildren[0] ?? null;
  return n?.type === 'type_identifier' || n?.type === 'qualified_type' ? n.text : undefined;
}

const GO_BUILTINS = new Set([
  'string',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uintptr',
  'float32',
  'float64',
  'complex64',
  'complex128',
  'bool',
  'byte',
  'rune',
  'error',
  'any',
]);
const GO_BUILTIN_FUNCS = new Set([
  'len',
  'cap',
  'make',
  'new',
  'append',
  'copy',
  'delete',
  'panic',
  'recover',
  'print',
  'println',
  'close',
  'min',
  'max',
  'clear',
]);
