// TypeScript, TSX, JavaScript and JSX: declarations, imports/exports (ESM and CommonJS), calls,
// constructions, heritage and parameter/return types. Names only; resolution is in resolve.ts.
import type { Tree } from 'web-tree-sitter';
import type { Extraction, GraphNode, NodeKind, Ref } from '../types.ts';
import { symbolUid } from '../uid.ts';
import { Builder, colOf, lineOf, type Node, signatureOf, syntaxError, VarTypes } from './common.ts';
import type { DialectRewrite } from './ts-dialect.ts';
import {
  bind,
  enterFunction,
  type Frame,
  functionFrame,
  lookupLocal,
  patternNames,
  ScopeSweep,
} from './ts-scopes.ts';

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const CLASS_DECLS = new Set(['class_declaration', 'abstract_class_declaration', 'class']);
/** What the sweep visits: declarations that open frames or bind names, and calls. */
const SWEPT = [
  'variable_declarator',
  'call_expression',
  'new_expression',
  'function_declaration',
  'generator_function_declaration',
  'arrow_function',
  'function_expression',
  'generator_function',
  'method_definition',
  ...CLASS_DECLS,
];

/**
 * `tree` may be the tree of `dialect.text`, the file with syntax newer than the grammar rewritten in
 * place (ts-dialect.ts): offsets are the same, so signatures are cut from the original `text`.
 */
export function extractTypeScript(
  path: string,
  text: string,
  tree: Tree,
  dialect?: DialectRewrite,
): Extraction {
  const b = new Builder(path, text);
  const root = tree.rootNode;
  for (const [local, module] of dialect?.importTypes ?? []) {
    // `import("m").T` in a type: the rewrite's identifier is a namespace import of m.
    b.facts.bindings.push({ local, module, imported: '*' });
  }
  if (dialect?.importTypes.size) {
    const re = /\bimport__/g;
    for (let m = re.exec(dialect.text); m; m = re.exec(dialect.text)) {
      const node = root.descendantForIndex(m.index);
      const module = node ? dialect.importTypes.get(node.text) : undefined;
      if (node && module !== undefined)
        b.ref({ type: 'imports', from: b.fileUid, name: '', module, line: lineOf(node), col: colOf(node) });
    }
  }
  // name → type name, for `v.m()` where v was declared `v: T` or `= new T()`; per file (cheap and
  // almost always unambiguous), with `this.f` fields keyed `Class.this.f`.
  const varTypes = new VarTypes();
  const noteType = (key: string, type: string | undefined) => varTypes.note(key, type);
  // What other files need to type a receiver chain (`this.a.b()`, `getStore().get()`): the declared
  // type of each field, property and module-level value (`Cache.store`, `Deps.store`, `store`), and the
  // declared return type of each function and method (`getStore`, `Cache.lookup`), by qualified name.
  const fieldTypes = new VarTypes();
  const returnTypes = new VarTypes();

  const typeParamsOf = (n: Node): Set<string> => {
    const tp = n.childForFieldName('type_parameters');
    const out = new Set<string>();
    if (tp) for (const p of tp.namedChildren) if (p) out.add(p.childForFieldName('name')?.text ?? '');
    return out;
  };

  const typeRefs = (
    owner: string,
    typeNode: Node | null,
    type: 'has_param_type' | 'returns_type',
    skip: Set<string>,
  ) => {
    if (!typeNode) return;
    for (const t of typeNode.descendantsOfType('type_identifier')) {
      if (!t || skip.has(t.text)) continue;
      // A.B in a type: keep the qualified name so namespace imports resolve.
      const parent = t.parent;
      const name = parent?.type === 'nested_type_identifier' ? parent.text : t.text;
      b.ref({ type, from: owner, name, line: lineOf(t), col: colOf(t) });
    }
  };

  // Parameter and return types; the parameters themselves bind in the function's frame (ts-scopes.ts).
  const functionLike = (sym: GraphNode, n: Node, skip: Set<string>) => {
    const { uid } = sym;
    const params = n.childForFieldName('parameters');
    if (params) {
      for (const p of params.namedChildren) {
        if (p) typeRefs(uid, p.childForFieldName('type'), 'has_param_type', skip);
      }
    }
    const ret = n.childForFieldName('return_type');
    typeRefs(uid, ret, 'returns_type', skip);
    // `(): Store =>`, or an arrow whose body is `new Store(…)`; a type parameter is no type of the graph.
    const type =
      promiseType(ret) ??
      simpleType(ret) ??
      (n.type === 'arrow_function' ? newType(n.childForFieldName('body')) : undefined);
    if (type && !skip.has(type)) returnTypes.note(sym.qualifiedName, type);
  };

  /** `unique`: the qualified name a nested class was given (see nestedName). */
  /** `decl` is the class, or the declarator of `const A = class {…}` (which names it and spans it). */
  const classDecl = (
    decl: Node,
    prefix: string,
    parent: string,
    kind: NodeKind = 'class',
    unique?: string,
  ) => {
    const nameNode = decl.childForFieldName('name');
    if (!nameNode) return;
    const n = decl.type === 'variable_declarator' ? (decl.childForFieldName('value') ?? decl) : decl;
    const qname = unique ?? prefix + nameNode.text;
    const body = n.childForFieldName('body');
    const cls = b.symbol(kind, qname, decl, {
      parent,
      signature: signatureOf(decl, body, text),
      cls: qname,
      label: nameNode.text,
    });
    const bases: string[] = [];
    for (const h of n.namedChildren) {
      if (!h) continue;
      if (h.type === 'class_heritage') {
        for (const c of h.namedChildren) {
          if (!c) continue;
          if (c.type === 'extends_clause') {
            const v = c.childForFieldName('value');
            if (v) {
              bases.push(v.text);
              b.ref({ type: 'inherits_from', from: cls.uid, name: v.text, line: lineOf(v), col: colOf(v) });
            }
          } else if (c.type === 'implements_clause') {
            for (const t of c.namedChildren) {
              if (!t) continue;
              const name = t.type === 'generic_type' ? (t.childForFieldName('name')?.text ?? t.text) : t.text;
              b.ref({ type: 'implements', from: cls.uid, name, line: lineOf(t), col: colOf(t) });
            }
          } else if (c.type !== 'extends_clause') {
            // The JavaScript form: `class A extends B` puts the expression directly under class_heritage.
            bases.push(c.text);
            b.ref({ type: 'inherits_from', from: cls.uid, name: c.text, line: lineOf(c), col: colOf(c) });
          }
        }
      } else if (h.type === 'extends_type_clause') {
        for (const t of h.namedChildren) {
          if (!t) continue;
          const name = t.type === 'generic_type' ? (t.childForFieldName('name')?.text ?? t.text) : t.text;
          bases.push(name);
          b.ref({ type: 'inherits_from', from: cls.uid, name, line: lineOf(t), col: colOf(t) });
        }
      }
    }
    if (bases.length) {
      b.facts.bases ??= {};
      b.facts.bases[qname] = bases;
    }
    if (!body) return;
    if (kind === 'interface') {
      interfaceMembers(body, qname, cls.uid);
      return;
    }
    const skip = typeParamsOf(n);
    for (const m of body.namedChildren) {
      if (!m) continue;
      if (
        m.type === 'method_definition' ||
        m.type === 'abstract_method_signature' ||
        m.type === 'method_signature'
      ) {
        const name = m.childForFieldName('name')?.text;
        if (!name) continue;
        const mb = m.childForFieldName('body');
        const method = b.symbol('method', `${qname}.${name}`, m, {
          parent: cls.uid,
          signature: signatureOf(m, mb, text),
          cls: qname,
        });
        functionLike(method, m, new Set([...skip, ...typeParamsOf(m)]));
        if (name === 'constructor') {
          // Parameter properties (`private store: Store`) are fields too: this.store.get() is typed.
          const params = m.childForFieldName('parameters');
          for (const p of params?.namedChildren ?? []) {
            if (!p) continue;
            const hasModifier = p.namedChildren.some(
              (c) => c?.type === 'accessibility_modifier' || c?.type === 'override_modifier',
            );
            const pat = p.childForFieldName('pattern');
            if (hasModifier && pat) {
              const type = simpleType(p.childForFieldName('type'));
              noteType(`${qname}.this.${pat.text}`, type);
              fieldTypes.note(`${qname}.${pat.text}`, type);
            }
          }
        }
      } else if (m.type === 'public_field_definition' || m.type === 'field_definition') {
        const nameNode = m.childForFieldName('name') ?? m.childForFieldName('property');
        const value = m.childForFieldName('value');
        if (!nameNode) continue;
        if (value && FUNCTION_VALUES.has(value.type)) {
          const method = b.symbol('method', `${qname}.${nameNode.text}`, m, {
            parent: cls.uid,
            signature: signatureOf(m, value.childForFieldName('body'), text),
            cls: qname,
          });
          functionLike(method, value, skip);
        } else {
          const type = simpleType(m.childForFieldName('type')) ?? newType(value);
          noteType(`${qname}.this.${nameNode.text}`, type);
          fieldTypes.note(`${qname}.${nameNode.text}`, type);
        }
      }
    }
  };

  /**
   * Methods of an interface (`get(k): V`, `get: (k) => V`): what a call through a receiver of its type
   * reaches. Added after the file's classes: where an interface merges with a class of its name, the
   * class's method is the node (with its own lines), and the interface adds only what the class lacks.
   */
  const interfaceMethods: { m: Node; qname: string; parent: string }[] = [];
  const interfaceMembers = (body: Node, qname: string, parent: string) => {
    for (const m of body.namedChildren) {
      if (!m) continue;
      const fnType =
        m.type === 'property_signature'
          ? m.childForFieldName('type')?.namedChildren[0]?.type === 'function_type'
            ? m.childForFieldName('type')!.namedChildren[0]!
            : undefined
          : undefined;
      const isMethod = m.type === 'method_signature' || fnType !== undefined;
      const name = m.childForFieldName('name')?.text;
      if (!name) continue;
      if (isMethod) {
        interfaceMethods.push({ m, qname: `${qname}.${name}`, parent });
        const ret = fnType ? fnType.childForFieldName('return_type') : m.childForFieldName('return_type');
        returnTypes.note(`${qname}.${name}`, promiseType(ret) ?? simpleType(ret));
      } else if (m.type === 'property_signature')
        fieldTypes.note(`${qname}.${name}`, simpleType(m.childForFieldName('type')));
    }
  };

  /**
   * `const api = { get() {…}, post: () => …, users: { list() {…} } }`: each function-valued property is
   * a method node under the constant (`api.get`, `api.users.list`), so calls made in it are its own and
   * `api.get()` reaches it. `this` in a method or `function` value is the object; an arrow keeps its own.
   */
  const objectMembers = (obj: Node, prefix: string, parent: string, depth: number) => {
    for (const m of obj.namedChildren) {
      if (!m) continue;
      if (m.type === 'method_definition') {
        const name = propertyName(m.childForFieldName('name'));
        if (!name) continue;
        const method = b.symbol('method', `${prefix}.${name}`, m, {
          parent,
          label: name,
          signature: signatureOf(m, m.childForFieldName('body'), text),
          cls: prefix,
        });
        functionLike(method, m, typeParamsOf(m));
      } else if (m.type === 'pair') {
        const name = propertyName(m.childForFieldName('key'));
        const value = unwrapValue(m.childForFieldName('value'));
        if (!name || !value) continue;
        if (FUNCTION_VALUES.has(value.type)) {
          const method = b.symbol('method', `${prefix}.${name}`, m, {
            parent,
            label: name,
            signature: signatureOf(m, value.childForFieldName('body'), text),
            ...(value.type === 'arrow_function' ? {} : { cls: prefix }),
          });
          functionLike(method, value, typeParamsOf(value));
        } else if (value.type === 'object' && depth < 3)
          objectMembers(value, `${prefix}.${name}`, parent, depth + 1);
        else fieldTypes.note(`${prefix}.${name}`, newType(value));
      }
    }
  };

  /** Untyped module-level values and what they were declared with (`const store = createStore()`). */
  const moduleValues: { qname: string; value: Node }[] = [];

  const variableDecl = (n: Node, prefix: string, parent: string, isConst: boolean) => {
    for (const d of n.namedChildren) {
      if (d?.type !== 'variable_declarator') continue;
      const nameNode = d.childForFieldName('name');
      const value = d.childForFieldName('value');
      if (!nameNode) continue;
      if (value && isRequire(value)) {
        requireBinding(nameNode, value);
        continue;
      }
      if (nameNode.type !== 'identifier') continue;
      const qname = prefix + nameNode.text;
      if (value && FUNCTION_VALUES.has(value.type)) {
        const fn = b.symbol('function', qname, d, {
          parent,
          signature: signatureOf(d, value.childForFieldName('body'), text),
        });
        functionLike(fn, value, typeParamsOf(value));
      } else if (value && CLASS_DECLS.has(value.type)) {
        classDecl(value.childForFieldName('name') ? value : d, prefix, parent);
      } else {
        const sym = b.symbol(isConst ? 'constant' : 'variable', qname, d, {
          parent,
          signature: signatureOf(d, null, text),
        });
        const type = simpleType(d.childForFieldName('type')) ?? newType(value);
        noteType(nameNode.text, type);
        fieldTypes.note(qname, type);
        const obj = objectLiteral(value);
        if (obj) objectMembers(obj, qname, sym.uid, 0);
        else if (!type && value && !prefix) moduleValues.push({ qname, value });
      }
    }
  };

  const requireBinding = (nameNode: Node, call: Node) => {
    const spec = stringArg(call);
    if (spec === undefined) return;
    b.ref({ type: 'imports', from: b.fileUid, name: '', module: spec, line: lineOf(call), col: colOf(call) });
    if (nameNode.type === 'identifier')
      b.facts.bindings.push({ local: nameNode.text, module: spec, imported: '*' });
    else if (nameNode.type === 'object_pattern') {
      for (const p of nameNode.namedChildren) {
        if (!p) continue;
        if (p.type === 'shorthand_property_identifier_pattern')
          b.facts.bindings.push({ local: p.text, module: spec, imported: p.text });
        else if (p.type === 'pair_pattern') {
          const key = p.childForFieldName('key')?.text;
          const val = p.childForFieldName('value');
          if (key && val?.type === 'identifier')
            b.facts.bindings.push({ local: val.text, module: spec, imported: key });
        }
      }
    }
  };

  const importStatement = (n: Node) => {
    const source = n.childForFieldName('source');
    const spec = source ? unquote(source.text) : undefined;
    if (spec === undefined) return;
    b.ref({ type: 'imports', from: b.fileUid, name: '', module: spec, line: lineOf(n), col: colOf(n) });
    const clause = n.namedChildren.find((c) => c?.type === 'import_clause');
    if (!clause) return;
    for (const c of clause.namedChildren) {
      if (!c) continue;
      if (c.type === 'identifier')
        b.facts.bindings.push({ local: c.text, module: spec, imported: 'default' });
      else if (c.type === 'namespace_import') {
        const id = c.namedChildren.find((x) => x?.type === 'identifier');
        if (id) b.facts.bindings.push({ local: id.text, module: spec, imported: '*' });
      } else if (c.type === 'named_imports') {
        for (const s of c.namedChildren) {
          if (s?.type !== 'import_specifier') continue;
          const name = s.childForFieldName('name')?.text;
          const alias = s.childForFieldName('alias')?.text;
          if (name) b.facts.bindings.push({ local: alias ?? name, module: spec, imported: unquote(name) });
        }
      }
    }
  };

  const exportStatement = (n: Node, prefix: string, parent: string) => {
    const decl = n.childForFieldName('declaration');
    const isDefault = n.children.some((c) => c?.type === 'default');
    if (decl) {
      statement(decl, prefix, parent);
      if (isDefault) {
        const name = decl.childForFieldName('name')?.text;
        if (name) b.facts.reexports.push({ module: '', imported: name, exported: 'default' });
      }
      return;
    }
    const source = n.childForFieldName('source');
    const spec = source ? unquote(source.text) : '';
    if (spec)
      b.ref({ type: 'imports', from: b.fileUid, name: '', module: spec, line: lineOf(n), col: colOf(n) });
    const clause = n.namedChildren.find((c) => c?.type === 'export_clause');
    if (clause) {
      for (const s of clause.namedChildren) {
        if (s?.type !== 'export_specifier') continue;
        const name = s.childForFieldName('name')?.text;
        const alias = s.childForFieldName('alias')?.text;
        if (name)
          b.facts.reexports.push({ module: spec, imported: unquote(name), exported: unquote(alias ?? name) });
      }
      return;
    }
    const ns = n.namedChildren.find((c) => c?.type === 'namespace_export');
    if (spec && ns) {
      const id = ns.namedChildren.find((c) => c);
      if (id) b.facts.reexports.push({ module: spec, imported: '*', exported: unquote(id.text) });
      return;
    }
    if (spec) {
      b.facts.reexports.push({ module: spec, imported: '*', exported: '*' });
      return;
    }
    const value = n.childForFieldName('value');
    if (isDefault && value) {
      if (value.type === 'identifier')
        b.facts.reexports.push({ module: '', imported: value.text, exported: 'default' });
      else if (FUNCTION_VALUES.has(value.type) || CLASS_DECLS.has(value.type)) {
        if (CLASS_DECLS.has(value.type) && value.childForFieldName('name')) statement(value, prefix, parent);
        else {
          const fn = b.symbol('function', `${prefix}default`, value, {
            parent,
            signature: signatureOf(value, value.childForFieldName('body'), text),
          });
          functionLike(fn, value, new Set());
        }
      }
    }
  };

  const statement = (n: Node, prefix: string, parent: string) => {
    switch (n.type) {
      case 'import_statement':
        importStatement(n);
        break;
      case 'export_statement':
        exportStatement(n, prefix, parent);
        break;
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'function_signature': {
        const nameNode = n.childForFieldName('name');
        // The rewrite names an anonymous `export default function (…): T;` `_`.
        const name = dialect?.defaultNames.has(nameNode?.startIndex ?? -1) ? 'default' : nameNode?.text;
        if (!name) break;
        const body = n.childForFieldName('body');
        const fn = b.symbol('function', prefix + name, n, { parent, signature: signatureOf(n, body, text) });
        functionLike(fn, n, typeParamsOf(n));
        break;
      }
      case 'class_declaration':
      case 'abstract_class_declaration':
      case 'class':
        classDecl(n, prefix, parent);
        break;
      case 'interface_declaration':
        classDecl(n, prefix, parent, 'interface');
        break;
      case 'type_alias_declaration': {
        const name = n.childForFieldName('name')?.text;
        if (name)
          b.symbol('type', prefix + name, n, { parent, signature: signatureOf(n, null, text), scope: false });
        break;
      }
      case 'enum_declaration': {
        const name = n.childForFieldName('name')?.text;
        if (name)
          b.symbol('enum', prefix + name, n, {
            parent,
            signature: signatureOf(n, n.childForFieldName('body'), text),
          });
        break;
      }
      case 'lexical_declaration':
      case 'variable_declaration':
        variableDecl(n, prefix, parent, n.type === 'lexical_declaration' && n.child(0)?.text === 'const');
        break;
      case 'ambient_declaration':
        for (const c of n.namedChildren) if (c) statement(c, prefix, parent);
        break;
      case 'expression_statement': {
        const e = n.namedChildren[0];
        if (e?.type === 'internal_module') statement(e, prefix, parent);
        break;
      }
      case 'module':
      case 'internal_module': {
        const nameNode = n.childForFieldName('name');
        const body = n.childForFieldName('body');
        if (!nameNode) break;
        const label = unquote(nameNode.text);
        // `declare module '../hub-services.ts' { … }` augments a file of this repository: named by
        // that file's path, since a uid never holds `..` (the doctor's malformed_uid_path).
        const name = nameNode.type === 'string' && label.startsWith('.') ? repoPath(path, label) : label;
        const mod = b.symbol('module', prefix + name, n, {
          parent,
          signature: signatureOf(n, body, text),
          label,
        });
        for (const c of body?.namedChildren ?? []) if (c) statement(c, `${prefix}${name}.`, mod.uid);
        break;
      }
    }
  };

  for (const c of root.namedChildren) if (c) statement(c, '', b.fileUid);
  for (const { m, qname, parent } of interfaceMethods)
    if (!b.has(symbolUid('method', path, qname)))
      b.symbol('method', qname, m, { parent, signature: signatureOf(m, null, text), scope: false });

  // Nested declarations, the frame of every function, and the calls, in one walk of the tree
  // (descendantsOfType costs a full traversal in WASM each time). Calls are resolved after the walk,
  // when every function's parameters and local declarations (hoisted functions too) are bound.
  const found = root.descendantsOfType(SWEPT);
  const sweep = new ScopeSweep(b.fileUid, b.scopes);
  const calls: { node: Node; frame: Frame }[] = [];
  // Parameter types also feed the file's guess for untyped names of the same spelling.
  const typeOf = (ann: Node | null, name: string) => {
    const type = simpleType(ann);
    noteType(name, type);
    return type;
  };
  const prefixOf = (f: Frame) => (f.qname ? `${f.qname}.` : '');
  /**
   * The qualified name of a nested declaration: its name under the named declaration around it, and
   * `name@2`, `name@3`… when that is taken (two `const setup = …` in two test callbacks are two
   * functions). Module-level declarations of one name stay one node (overloads, merged declarations).
   */
  const nestedName = (kind: NodeKind, f: Frame, name: string) => {
    const base = prefixOf(f) + name;
    if (!b.has(symbolUid(kind, path, base))) return base;
    let i = 2;
    while (b.has(symbolUid(kind, path, `${base}@${i}`))) i++;
    return `${base}@${i}`;
  };
  /** Registers declarations made by `make` and opens their frames. */
  const nested = (make: () => void) => {
    const before = b.scopes.length;
    make();
    sweep.adopt(b.scopes.slice(before));
  };
  for (const n of found) {
    if (!n) continue;
    const top = sweep.at(n.startIndex);
    switch (n.type) {
      case 'call_expression':
      case 'new_expression':
        calls.push({ node: n, frame: top });
        break;
      case 'variable_declarator': {
        // Module-level declarators were declared by statement(); these are a function's locals.
        if (!top.inFn || sweep.isScopeOf(top, n)) break;
        const nameNode = n.childForFieldName('name');
        if (!nameNode) break;
        const home = functionFrame(top)!;
        if (nameNode.type !== 'identifier') {
          for (const name of patternNames(nameNode)) bind(home, name, { type: null });
          break;
        }
        const value = n.childForFieldName('value');
        if (value && FUNCTION_VALUES.has(value.type)) {
          const qname = nestedName('function', top, nameNode.text);
          nested(() => {
            const fn = b.symbol('function', qname, n, {
              parent: top.uid,
              label: nameNode.text,
              signature: signatureOf(n, value.childForFieldName('body'), text),
              // An arrow function's `this` is the one around it.
              ...(value.type === 'arrow_function' && top.cls ? { cls: top.cls } : {}),
            });
            functionLike(fn, value, typeParamsOf(value));
          });
          bind(home, nameNode.text, { def: qname });
        } else if (value && CLASS_DECLS.has(value.type)) {
          const named = value.childForFieldName('name');
          const qname = nestedName('class', top, named?.text ?? nameNode.text);
          nested(() => classDecl(named ? value : n, prefixOf(top), top.uid, 'class', qname));
          bind(home, nameNode.text, { def: qname });
        } else {
          const type = simpleType(n.childForFieldName('type')) ?? newType(value);
          noteType(nameNode.text, type);
          bind(home, nameNode.text, type || !value ? { type: type ?? null } : { type: null, init: value });
        }
        break;
      }
      case 'class_declaration':
      case 'abstract_class_declaration':
      case 'class': {
        // Declared by statement() or with its declarator (`const A = class {}` is registered on the declarator).
        if (
          sweep.isScopeOf(top, n) ||
          (top.scope && top.end === n.endIndex && sweep.isScopeOf(top, n.parent!))
        )
          break;
        const nameNode = n.childForFieldName('name');
        if (!nameNode) {
          // An anonymous class: its methods are anonymous functions whose `this` the graph cannot type.
          sweep.openAnonymous(n, { fn: false, keepThis: false });
          break;
        }
        const qname = nestedName('class', top, nameNode.text);
        nested(() => classDecl(n, prefixOf(top), top.uid, 'class', qname));
        const home = functionFrame(top);
        if (home && n.type !== 'class') bind(home, nameNode.text, { def: qname });
        break;
      }
      default: {
        // A function: the value or body of a declaration already registered, a nested named one, or anonymous.
        if (sweep.isScopeOf(top, n)) {
          enterFunction(top, n, typeOf);
          break;
        }
        if (!top.fn && top.scope && top.end === n.endIndex && sweep.isScopeOf(top, n.parent!)) {
          // `const f = () => …`, `field = () => …`: the declaration is the function's node.
          enterFunction(top, n, typeOf);
          break;
        }
        const isDecl = n.type === 'function_declaration' || n.type === 'generator_function_declaration';
        const name =
          n.type === 'method_definition' || n.type === 'arrow_function'
            ? undefined
            : n.childForFieldName('name')?.text;
        if (name) {
          const qname = nestedName('function', top, name);
          nested(() => {
            const fn = b.symbol('function', qname, n, {
              parent: top.uid,
              label: name,
              signature: signatureOf(n, n.childForFieldName('body'), text),
            });
            functionLike(fn, n, typeParamsOf(n));
          });
          const frame = sweep.at(n.startIndex);
          // A declaration is hoisted in the function around it; a function expression's name is its own.
          const home = isDecl ? functionFrame(top) : frame;
          if (home) bind(home, name, { def: qname });
          enterFunction(frame, n, typeOf);
          break;
        }
        // Anonymous: a callback, an object literal's method, a method of an anonymous class.
        const frame = sweep.openAnonymous(n, { fn: true, keepThis: n.type === 'arrow_function' });
        enterFunction(frame, n, typeOf);
        break;
      }
    }
  }

  const importedNames = new Set(b.facts.bindings.filter((x) => x.imported !== '*').map((x) => x.local));
  /**
   * The receiver of a member call as segments the resolver follows through declared types (Ref.via):
   * what this file knows of its start (`this`, a typed local, `new T()`, `x as T`), or the name it
   * starts from, then each property read and call. Undefined when the start has no type to follow.
   */
  const receiverChain = (n: Node | null, frame: Frame, depth: number): string[] | undefined => {
    if (!n || depth > 8) return undefined;
    switch (n.type) {
      case 'parenthesized_expression':
      case 'non_null_expression':
        return receiverChain(n.namedChildren[0] ?? null, frame, depth + 1);
      case 'as_expression':
      case 'satisfies_expression': {
        const type = simpleType(n.namedChildren[1]);
        return type ? [`T:${type}`] : receiverChain(n.namedChildren[0] ?? null, frame, depth + 1);
      }
      case 'this':
        return frame.cls ? [`T:${frame.cls}`] : undefined;
      case 'identifier': {
        const local = lookupLocal(frame, n.text);
        if (local && 'def' in local) return [`N:${local.def}`];
        const type = local ? (local.type ?? varTypes.get(n.text)) : varTypes.get(n.text);
        if (type) return [`T:${type}`];
        // `const s = getStore(); s.get()`: the value's chain is the expression it was declared with.
        if (local?.init) return receiverChain(local.init, frame, depth + 1);
        return local ? undefined : [`N:${n.text}`];
      }
      case 'await_expression': {
        const left = receiverChain(n.namedChildren[0] ?? null, frame, depth + 1);
        return left && [...left, 'await'];
      }
      case 'member_expression': {
        const prop = n.childForFieldName('property');
        const left = prop ? receiverChain(n.childForFieldName('object'), frame, depth + 1) : undefined;
        return left && [...left, `.${prop!.text}`];
      }
      case 'call_expression': {
        const left = receiverChain(n.childForFieldName('function'), frame, depth + 1);
        return left && [...left, '()'];
      }
      case 'new_expression': {
        const type = newType(n);
        return type ? [`T:${type}`] : undefined;
      }
      default:
        return undefined;
    }
  };
  /**
   * Whether a chain says more than the name does: a call in it, a property of a typed start, or an
   * imported value (`store.get()` with `import { store }`: its declared type is in its own file).
   * A plain dotted name (`api.users.list()`, `ns.f()`) resolves as a name.
   */
  const followable = (via: string[]): boolean =>
    via.includes('()') ||
    (via[0]!.startsWith('T:') && via.length > 1) ||
    (via.length === 1 &&
      via[0]!.startsWith('N:') &&
      (importedNames.has(via[0]!.slice(2)) || valueVia.has(via[0]!.slice(2))));
  // `export const store = createStore()`: the chain of a module-level value, for calls through it here
  // and in the files importing it.
  const valueVia = new Map<string, string[]>();
  for (const { qname, value } of moduleValues) {
    const via = receiverChain(value, sweep.file, 0);
    if (via && (via.includes('()') || via.includes('await'))) valueVia.set(qname, via);
  }
  if (valueVia.size) b.facts.valueVia = Object.fromEntries(valueVia);

  for (const { node: c, frame } of calls) {
    const from = frame.uid;
    if (c.type === 'new_expression') {
      const ctor = c.childForFieldName('constructor');
      const name = ctor ? calleeName(ctor) : undefined;
      if (!name) continue;
      const ref: Ref = { type: 'constructs', from, name, line: lineOf(c), col: colOf(ctor ?? c) };
      const local = name.includes('.') ? undefined : lookupLocal(frame, name);
      if (local) ref.local = 'def' in local ? local.def : null;
      b.ref(ref);
      continue;
    }
    const fn = c.childForFieldName('function');
    if (!fn) continue;
    if (fn.type === 'import') {
      // Dynamic import('x'): an import of the file, made where it is called.
      const spec = stringArg(c);
      if (spec !== undefined)
        b.ref({ type: 'imports', from: b.fileUid, name: '', module: spec, line: lineOf(c), col: colOf(c) });
      continue;
    }
    if (fn.type === 'identifier' && fn.text === 'require') {
      const spec = stringArg(c);
      if (spec !== undefined && c.parent?.type !== 'variable_declarator')
        b.ref({ type: 'imports', from: b.fileUid, name: '', module: spec, line: lineOf(c), col: colOf(c) });
      continue;
    }
    const name = calleeName(fn);
    if (!name) continue;
    // The column of the called name (the property in a.b.c()), as an editor's find-references reports it.
    const nameNode = fn.type === 'member_expression' ? (fn.childForFieldName('property') ?? fn) : fn;
    const ref: Ref = { type: 'calls', from, name, line: lineOf(nameNode), col: colOf(nameNode) };
    if (frame.cls) ref.cls = frame.cls;
    const dot = name.indexOf('.');
    const head = dot === -1 ? name : name.slice(0, dot);
    const local = head === 'this' || head === 'super' || head === '~' ? undefined : lookupLocal(frame, head);
    if (local) {
      if ('def' in local) ref.local = local.def + name.slice(head.length);
      else {
        // A parameter or local variable: typed `v: T` or `= new T()`, a member of T. Untyped (`const
        // { status } = …`), the type the same name has elsewhere in the file, when it has one only.
        const type = local.type ?? varTypes.get(head);
        if (type && dot !== -1 && name.indexOf('.', dot + 1) === -1) ref.recvType = type;
        ref.local = null;
      }
    } else if (dot !== -1) {
      const recv = name.slice(0, name.lastIndexOf('.'));
      let recvType: string | undefined;
      if (recv.startsWith('this.') && frame.cls) recvType = varTypes.get(`${frame.cls}.${recv}`) ?? undefined;
      else if (recv !== '~' && !recv.includes('.')) recvType = varTypes.get(recv) ?? undefined;
      else if (recv === '~' && fn.type === 'member_expression') {
        // `new Builder(…).result()`: the receiver's type is the constructed class.
        let obj = fn.childForFieldName('object');
        while (obj?.type === 'parenthesized_expression') obj = obj.namedChildren[0] ?? null;
        recvType = newType(obj);
      }
      if (recvType) ref.recvType = recvType;
    }
    if (fn.type === 'member_expression' && !ref.recvType) {
      const obj = fn.childForFieldName('object');
      const via = receiverChain(obj, frame, 0);
      // `this.m()` is the class's own member (exact), resolved as such; `(x as T).m()` is T's.
      if (via && (followable(via) || (obj?.type !== 'this' && via[0]!.startsWith('T:')))) ref.via = via;
    }
    b.ref(ref);
  }

  const fields = fieldTypes.known();
  if (fields) b.facts.fieldTypes = fields;
  const returns = returnTypes.known();
  if (returns) b.facts.returnTypes = returns;
  return b.result(syntaxError(root));
}

/** `a`, `a.b.c`, `this.a.b`; `~.m` when the receiver is an expression (a call, an index, …). */
function calleeName(n: Node): string | undefined {
  switch (n.type) {
    case 'identifier':
    case 'this':
    case 'super':
      return n.text;
    case 'member_expression': {
      const obj = n.childForFieldName('object');
      const prop = n.childForFieldName('property');
      if (!prop) return undefined;
      const left = obj ? calleeName(obj) : undefined;
      return `${left ?? '~'}.${prop.text}`;
    }
    case 'parenthesized_expression':
    case 'non_null_expression': {
      const inner = n.namedChildren[0];
      return inner ? calleeName(inner) : undefined;
    }
    default:
      return undefined;
  }
}

function simpleType(ann: Node | null | undefined): string | undefined {
  if (!ann) return undefined;
  let t: Node | null | undefined = ann.type === 'type_annotation' ? ann.namedChildren[0] : ann;
  if (t?.type === 'generic_type') t = t.childForFieldName('name');
  if (t?.type === 'type_identifier' || t?.type === 'nested_type_identifier') return t.text;
  return undefined;
}

/** `Promise<Store>` (or `PromiseLike<Store>`) as `Promise<Store>`: what `await` of the call gives is a Store. */
function promiseType(ann: Node | null | undefined): string | undefined {
  const t = ann?.type === 'type_annotation' ? ann.namedChildren[0] : ann;
  if (t?.type !== 'generic_type') return undefined;
  const name = t.childForFieldName('name')?.text;
  if (name !== 'Promise' && name !== 'PromiseLike') return undefined;
  const inner = simpleType(t.childForFieldName('type_arguments')?.namedChildren[0]);
  return inner ? `Promise<${inner}>` : undefined;
}

function newType(value: Node | null | undefined): string | undefined {
  if (value?.type !== 'new_expression') return undefined;
  const ctor = value.childForFieldName('constructor');
  return ctor?.type === 'identifier' || ctor?.type === 'member_expression' ? ctor.text : undefined;
}

/** The value under `as const`, `satisfies T` and parentheses. */
function unwrapValue(n: Node | null | undefined): Node | undefined {
  let v = n ?? undefined;
  while (
    v &&
    (v.type === 'parenthesized_expression' || v.type === 'as_expression' || v.type === 'satisfies_expression')
  )
    v = v.namedChildren[0] ?? undefined;
  return v;
}

/** An object literal's value, if `value` is one (`{…}`, `{…} as const`, `{…} satisfies Api`). */
function objectLiteral(value: Node | null | undefined): Node | undefined {
  const v = unwrapValue(value);
  return v?.type === 'object' ? v : undefined;
}

/** A property's name as a call would spell it: `get`, `'get'`, `"x-y"`; computed and numeric keys have none. */
function propertyName(key: Node | null | undefined): string | undefined {
  if (!key) return undefined;
  if (key.type === 'property_identifier' || key.type === 'private_property_identifier') return key.text;
  if (key.type === 'string') {
    const name = unquote(key.text);
    return /^[A-Za-z_$][\w$]*$/.test(name) ? name : undefined;
  }
  return undefined;
}

function isRequire(n: Node): boolean {
  return n.type === 'call_expression' && n.childForFieldName('function')?.text === 'require';
}

function stringArg(call: Node): string | undefined {
  const args = call.childForFieldName('arguments');
  const first = args?.namedChildren[0];
  if (first?.type !== 'string') return undefined;
  return unquote(first.text);
}

/** A relative specifier written in `from` as a repository path: `server/a/x.ts` + `../b.ts` → `server/b.ts`. */
function repoPath(from: string, spec: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

export function unquote(s: string): string {
  const c = s[0];
  return (c === '"' || c === "'" || c === '`') && s.length >= 2 ? s.slice(1, -1) : s;
}
