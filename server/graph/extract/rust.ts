// Rust: functions, structs (class), enums, traits (interface), type aliases, consts/statics, inline
// modules, impl blocks (methods as Type.method; `impl Trait for Type` → implements); `use` trees and
// `mod x;` as imports; calls through paths (a::b::f, Type::new), self.m() and typed locals; struct
// literals as constructions.
import type { Tree } from 'web-tree-sitter';
import type { Extraction, NodeKind } from '../types.ts';
import { symbolUid } from '../uid.ts';
import { Builder, colOf, lineOf, type Node, signatureOf, syntaxError, VarTypes } from './common.ts';

const ITEMS: Record<string, NodeKind> = {
  function_item: 'function',
  function_signature_item: 'function',
  struct_item: 'class',
  union_item: 'class',
  enum_item: 'enum',
  trait_item: 'interface',
  type_item: 'type',
  const_item: 'constant',
  static_item: 'variable',
  macro_definition: 'function',
};

export function extractRust(path: string, text: string, tree: Tree): Extraction {
  const b = new Builder(path, text);
  const root = tree.rootNode;
  const varTypes = new VarTypes();
  const noteType = (key: string, type: string | undefined) => varTypes.note(key, type);
  const typeRefs = (owner: string, t: Node | null, type: 'has_param_type' | 'returns_type') => {
    if (!t) return;
    const ids = t.type === 'type_identifier' ? [t] : t.descendantsOfType('type_identifier');
    for (const id of ids)
      if (id && id.text !== 'Self')
        b.ref({ type, from: owner, name: id.text, line: lineOf(id), col: colOf(id) });
  };
  const fnParams = (owner: string, n: Node) => {
    for (const p of n.childForFieldName('parameters')?.namedChildren ?? []) {
      if (p?.type !== 'parameter') continue;
      const t = p.childForFieldName('type');
      typeRefs(owner, t, 'has_param_type');
      const pat = p.childForFieldName('pattern');
      if (pat?.type === 'identifier') noteType(pat.text, baseType(t));
    }
    typeRefs(owner, n.childForFieldName('return_type'), 'returns_type');
  };

  const walkUseTree = (n: Node, prefix: string[], line: number, col: number) => {
    switch (n.type) {
      case 'scoped_identifier': {
        const path = n.childForFieldName('path');
        const name = n.childForFieldName('name')?.text;
        if (!name) return;
        const mod = [...prefix, ...(path ? path.text.split('::') : [])];
        addUse(mod, name, name, line, col);
        return;
      }
      case 'identifier':
        addUse(prefix, n.text, n.text, line, col);
        return;
      case 'use_as_clause': {
        const p = n.childForFieldName('path');
        const alias = n.childForFieldName('alias')?.text;
        if (!p || !alias) return;
        const parts = [...prefix, ...p.text.split('::')];
        const name = parts.pop()!;
        addUse(parts, name, alias, line, col);
        return;
      }
      case 'scoped_use_list': {
        const p = n.childForFieldName('path');
        const list = n.childForFieldName('list');
        const base = [...prefix, ...(p ? p.text.split('::') : [])];
        for (const c of list?.namedChildren ?? []) if (c) walkUseTree(c, base, line, col);
        return;
      }
      case 'use_list':
        for (const c of n.namedChildren) if (c) walkUseTree(c, prefix, line, col);
        return;
      case 'use_wildcard': {
        const p = n.namedChildren[0];
        const mod = [...prefix, ...(p ? p.text.split('::') : [])].join('::');
        b.ref({ type: 'imports', from: b.fileUid, name: '', module: mod, line, col });
        b.facts.reexports.push({ module: mod, imported: '*', exported: '*' });
        return;
      }
    }
  };
  const seenUse = new Set<string>();
  const addUse = (mod: string[], name: string, local: string, line: number, col: number) => {
    if (name === 'self') {
      name = mod.pop() ?? name;
      if (local === 'self') local = name;
    }
    const module = mod.join('::') || 'crate';
    if (!seenUse.has(module)) {
      seenUse.add(module);
      b.ref({ type: 'imports', from: b.fileUid, name: '', module, line, col });
    }
    b.facts.bindings.push({ local, module, imported: name });
  };

  const items = (list: Node, prefix: string, parent: string) => {
    for (const n of list.namedChildren) {
      if (!n) continue;
      const kind = ITEMS[n.type];
      if (kind) {
        const name = n.childForFieldName('name')?.text;
        if (!name) continue;
        const body = n.childForFieldName('body');
        const sym = b.symbol(kind, prefix + name, n, {
          parent,
          signature: signatureOf(n, body, text),
          ...(kind === 'class' || kind === 'interface' ? { cls: prefix + name } : {}),
          scope: kind !== 'type',
        });
        if (n.type === 'function_item' || n.type === 'function_signature_item') fnParams(sym.uid, n);
        if (n.type === 'trait_item' && body) {
          for (const m of body.namedChildren) {
            if (m?.type !== 'function_item' && m?.type !== 'function_signature_item') continue;
            const mn = m.childForFieldName('name')?.text;
            if (!mn) continue;
            const ms = b.symbol('method', `${prefix}${name}.${mn}`, m, {
              parent: sym.uid,
              signature: signatureOf(m, m.childForFieldName('body'), text),
              cls: prefix + name,
            });
            fnParams(ms.uid, m);
          }
        }
      } else if (n.type === 'mod_item') {
        const name = n.childForFieldName('name')?.text;
        if (!name) continue;
        const body = n.childForFieldName('body');
        if (body) {
          const mod = b.symbol('module', prefix + name, n, { parent, signature: signatureOf(n, body, text) });
          items(body, `${prefix}${name}.`, mod.uid);
        } else if (!prefix) {
          b.ref({ type: 'imports', from: b.fileUid, name: '', module: name, line: lineOf(n), col: colOf(n) });
          b.facts.bindings.push({ local: name, module: name, imported: '*' });
        }
      } else if (n.type === 'use_declaration' && !prefix) {
        const arg = n.childForFieldName('argument');
        if (arg) walkUseTree(arg, [], lineOf(n), colOf(n));
      } else if (n.type === 'impl_item') {
        const type = baseType(n.childForFieldName('type'));
        if (!type) continue;
        const qtype = prefix + type;
        const trait = n.childForFieldName('trait');
        const local = b.nodes.some((x) => x.qualifiedName === qtype && x.kind === 'class');
        const owner = local ? symbolUid('class', path, qtype) : b.fileUid;
        if (trait) {
          const tn = baseType(trait) ?? trait.text;
          b.ref({ type: 'implements', from: owner, name: tn, line: lineOf(trait), col: colOf(trait) });
          b.facts.bases ??= {};
          const list = b.facts.bases[qtype] ?? [];
          list.push(tn);
          b.facts.bases[qtype] = list;
        }
        for (const m of n.childForFieldName('body')?.namedChildren ?? []) {
          if (m?.type !== 'function_item') continue;
          const mn = m.childForFieldName('name')?.text;
          if (!mn) continue;
          const ms = b.symbol('method', `${qtype}.${mn}`, m, {
            parent: owner,
            signature: signatureOf(m, m.childForFieldName('body'), text),
            cls: qtype,
          });
          fnParams(ms.uid, m);
        }
      }
    }
  };
  items(root, '', b.fileUid);

  for (const l of root.descendantsOfType('let_declaration')) {
    const pat = l?.childForFieldName('pattern');
    if (pat?.type !== 'identifier') continue;
    const value = l?.childForFieldName('value');
    let t = baseType(l?.childForFieldName('type'));
    if (!t && value?.type === 'struct_expression') t = value.childForFieldName('name')?.text;
    if (!t && value?.type === 'call_expression') {
      // `let s = Store::new()`: the constructor idiom names the type.
      const f = value.childForFieldName('function');
      if (f?.type === 'scoped_identifier' && f.childForFieldName('name')?.text === 'new')
        t = f.childForFieldName('path')?.text;
    }
    noteType(pat.text, t);
  }

  const scopeAt = b.scopeFinder();
  for (const c of root.descendantsOfType(['call_expression', 'struct_expression'])) {
    if (!c) continue;
    const scope = scopeAt(c.startIndex);
    const from = scope?.uid ?? b.fileUid;
    if (c.type === 'struct_expression') {
      const t = c.childForFieldName('name');
      if (t)
        b.ref({
          type: 'constructs',
          from,
          name: t.text.replaceAll('::', '.'),
          line: lineOf(t),
          col: colOf(t),
        });
      continue;
    }
    const fn = c.childForFieldName('function');
    if (!fn) continue;
    let name: string | undefined;
    let nameNode: Node = fn;
    let recvType: string | undefined;
    if (fn.type === 'identifier') name = fn.text;
    else if (fn.type === 'scoped_identifier') {
      name = fn.text.replace(/<[^>]*>/g, '').replaceAll('::', '.');
      nameNode = fn.childForFieldName('name') ?? fn;
    } else if (fn.type === 'field_expression') {
      const v = fn.childForFieldName('value');
      const field = fn.childForFieldName('field');
      if (!field) continue;
      nameNode = field;
      if (v?.type === 'self') name = `this.${field.text}`;
      else if (v?.type === 'identifier') {
        recvType = varTypes.get(v.text) ?? undefined;
        name = `${v.text}.${field.text}`;
      } else name = `~.${field.text}`;
    }
    if (!name) continue;
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
  while (n && (n.type === 'reference_type' || n.type === 'generic_type' || n.type === 'pointer_type')) {
    n = n.childForFieldName('type') ?? n.namedChildren.find((c) => c?.type === 'type_identifier') ?? null;
  }
  return n?.type === 'type_identifier' ? n.text : undefined;
}
