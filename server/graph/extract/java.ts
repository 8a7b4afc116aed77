// Java: package, imports (single-type, static, on-demand), classes/interfaces/enums/records (nested as
// Outer.Inner), methods and constructors, fields; calls through typed locals/fields, this, static
// receivers and implicit this; object creation; extends/implements; parameter and return types.
import type { Tree } from 'web-tree-sitter';
import type { Extraction, NodeKind } from '../types.ts';
import { Builder, colOf, lineOf, type Node, signatureOf, syntaxError, VarTypes } from './common.ts';

const TYPE_DECLS: Record<string, NodeKind> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
};

export function extractJava(path: string, text: string, tree: Tree): Extraction {
  const b = new Builder(path, text);
  const root = tree.rootNode;
  const varTypes = new VarTypes();
  const noteType = (key: string, type: string | undefined) => varTypes.note(key, type);
  const typeRefs = (owner: string, t: Node | null, type: 'has_param_type' | 'returns_type') => {
    if (!t) return;
    const ids = t.type === 'type_identifier' ? [t] : t.descendantsOfType('type_identifier');
    for (const id of ids)
      if (id && !JAVA_LANG.has(id.text))
        b.ref({ type, from: owner, name: id.text, line: lineOf(id), col: colOf(id) });
  };

  const typeDecl = (n: Node, prefix: string, parent: string) => {
    const kind = TYPE_DECLS[n.type];
    const name = n.childForFieldName('name')?.text;
    if (!kind || !name) return;
    const qname = prefix + name;
    const body = n.childForFieldName('body');
    const cls = b.symbol(kind, qname, n, { parent, signature: signatureOf(n, body, text), cls: qname });
    const bases: string[] = [];
    const sc = n.childForFieldName('superclass');
    for (const t of sc?.descendantsOfType('type_identifier') ?? []) {
      if (!t || t.parent?.type === 'type_arguments') continue;
      bases.push(t.text);
      b.ref({ type: 'inherits_from', from: cls.uid, name: t.text, line: lineOf(t), col: colOf(t) });
    }
    const ifaces =
      n.childForFieldName('interfaces') ?? n.namedChildren.find((c) => c?.type === 'extends_interfaces');
    for (const t of ifaces?.descendantsOfType('type_identifier') ?? []) {
      if (!t || t.parent?.type === 'type_arguments') continue;
      bases.push(t.text);
      b.ref({
        type: kind === 'interface' ? 'inherits_from' : 'implements',
        from: cls.uid,
        name: t.text,
        line: lineOf(t),
        col: colOf(t),
      });
    }
    if (bases.length) {
      b.facts.bases ??= {};
      b.facts.bases[qname] = bases;
    }
    for (const m of body?.namedChildren ?? []) {
      if (!m) continue;
      if (TYPE_DECLS[m.type]) typeDecl(m, `${qname}.`, cls.uid);
      else if (
        m.type === 'method_declaration' ||
        m.type === 'constructor_declaration' ||
        m.type === 'compact_constructor_declaration'
      ) {
        const mname = m.type === 'method_declaration' ? m.childForFieldName('name')?.text : 'constructor';
        if (!mname) continue;
        const sym = b.symbol('method', `${qname}.${mname}`, m, {
          parent: cls.uid,
          signature: signatureOf(m, m.childForFieldName('body'), text),
          cls: qname,
          label: m.type === 'method_declaration' ? mname : name,
        });
        for (const p of m.childForFieldName('parameters')?.namedChildren ?? []) {
          if (p?.type !== 'formal_parameter' && p?.type !== 'spread_parameter') continue;
          const t =
            p.childForFieldName('type') ?? p.namedChildren.find((c) => c?.type.endsWith('type')) ?? null;
          typeRefs(sym.uid, t, 'has_param_type');
          const pn = p.childForFieldName('name')?.text;
          if (pn && t) noteType(pn, simple(t));
        }
        typeRefs(sym.uid, m.childForFieldName('type'), 'returns_type');
      } else if (m.type === 'field_declaration' || m.type === 'constant_declaration') {
        const t = m.childForFieldName('type');
        for (const d of m.childrenForFieldName('declarator')) {
          const fname = d?.childForFieldName('name')?.text;
          if (!fname) continue;
          noteType(fname, simple(t));
          const isConst = /\bstatic\b/.test(m.text.slice(0, 80)) && /\bfinal\b/.test(m.text.slice(0, 80));
          b.symbol(isConst || kind === 'interface' ? 'constant' : 'variable', `${qname}.${fname}`, d!, {
            parent: cls.uid,
            signature: signatureOf(m, null, text),
            scope: false,
          });
        }
      }
    }
  };

  for (const n of root.namedChildren) {
    if (!n) continue;
    if (n.type === 'package_declaration')
      b.facts.pkg = n.namedChildren.find((c) => c?.type !== 'annotation')?.text ?? '';
    else if (n.type === 'import_declaration') {
      const id = n.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier');
      if (!id) continue;
      const isStatic = n.children.some((c) => c?.type === 'static');
      const wildcard = n.namedChildren.some((c) => c?.type === 'asterisk');
      const full = id.text;
      b.ref({
        type: 'imports',
        from: b.fileUid,
        name: '',
        module: wildcard ? `${full}.*` : full,
        line: lineOf(n),
        col: colOf(n),
      });
      if (wildcard) b.facts.reexports.push({ module: `${full}.*`, imported: '*', exported: '*' });
      else if (isStatic) {
        const parts = full.split('.');
        const member = parts.pop()!;
        const cls = parts[parts.length - 1]!;
        b.facts.bindings.push({ local: member, module: parts.join('.'), imported: `${cls}.${member}` });
      } else {
        const last = full.slice(full.lastIndexOf('.') + 1);
        b.facts.bindings.push({ local: last, module: full, imported: last });
      }
    } else if (TYPE_DECLS[n.type]) typeDecl(n, '', b.fileUid);
  }

  for (const d of root.descendantsOfType('local_variable_declaration')) {
    if (!d) continue;
    const t = d.childForFieldName('type');
    for (const v of d.childrenForFieldName('declarator')) {
      const nm = v?.childForFieldName('name')?.text;
      if (!nm) continue;
      let ty = simple(t);
      if (ty === 'var') {
        const val = v?.childForFieldName('value');
        ty = val?.type === 'object_creation_expression' ? simple(val.childForFieldName('type')) : undefined;
      }
      noteType(nm, ty);
    }
  }

  const scopeAt = b.scopeFinder();
  for (const c of root.descendantsOfType(['method_invocation', 'object_creation_expression'])) {
    if (!c) continue;
    const scope = scopeAt(c.startIndex);
    const from = scope?.uid ?? b.fileUid;
    if (c.type === 'object_creation_expression') {
      const t = c.childForFieldName('type');
      const name = simple(t);
      if (t && name) b.ref({ type: 'constructs', from, name, line: lineOf(t), col: colOf(t) });
      continue;
    }
    const nameNode = c.childForFieldName('name');
    if (!nameNode) continue;
    const obj = c.childForFieldName('object');
    let name: string;
    let recvType: string | undefined;
    if (!obj) name = nameNode.text;
    else if (obj.type === 'this') name = `this.${nameNode.text}`;
    else if (obj.type === 'super') name = `super.${nameNode.text}`;
    else if (obj.type === 'identifier') {
      name = `${obj.text}.${nameNode.text}`;
      recvType = varTypes.get(obj.text) ?? undefined;
    } else if (obj.type === 'field_access' && obj.childForFieldName('object')?.type === 'this') {
      const f = obj.childForFieldName('field')?.text ?? '';
      name = `~.${nameNode.text}`;
      recvType = varTypes.get(f) ?? undefined;
    } else name = `~.${nameNode.text}`;
    if (recvType && name.startsWith('~.')) name = `v.${nameNode.text}`;
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

function simple(t: Node | null | undefined): string | undefined {
  if (!t) return undefined;
  if (t.type === 'type_identifier') return t.text;
  if (t.type === 'generic_type') return t.namedChildren.find((c) => c?.type === 'type_identifier')?.text;
  if (t.type === 'scoped_type_identifier') return t.text;
  return undefined;
}

const JAVA_LANG = new Set([
  'String',
  'Object',
  'Integer',
  'Long',
  'Double',
  'Float',
  'Boolean',
  'Character',
  'Byte',
  'Short',
  'Void',
  'List',
  'Map',
  'Set',
  'Optional',
]);
