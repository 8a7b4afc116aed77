// Java: Spring MVC (`@RequestMapping` on the class as a prefix, `@GetMapping`… or `@RequestMapping(method = …)`
// on methods), Spring events (`@EventListener`, `@KafkaListener(topics = …)`), and `public static void main`.
import type { Tree } from 'web-tree-sitter';
import { joinRoute, type Node, routeName, type SurfaceBuilder, stringValue } from './common.ts';

const MAPPINGS = new Map<string, string | null>([
  ['GetMapping', 'GET'],
  ['PostMapping', 'POST'],
  ['PutMapping', 'PUT'],
  ['PatchMapping', 'PATCH'],
  ['DeleteMapping', 'DELETE'],
  ['RequestMapping', null],
]);

interface Annotation {
  name: string;
  /** The unnamed argument, or `value`/`path`. */
  values: string[];
  pairs: Map<string, Node>;
}

function annotations(decl: Node): Annotation[] {
  const mods = decl.namedChildren.find((c) => c?.type === 'modifiers');
  const out: Annotation[] = [];
  for (const a of mods?.namedChildren ?? []) {
    if (a?.type !== 'annotation' && a?.type !== 'marker_annotation') continue;
    const name = a.childForFieldName('name')?.text.split('.').pop() ?? '';
    const pairs = new Map<string, Node>();
    const values: string[] = [];
    for (const arg of a.childForFieldName('arguments')?.namedChildren ?? []) {
      if (!arg) continue;
      if (arg.type === 'element_value_pair') {
        const k = arg.childForFieldName('key')?.text;
        const v = arg.childForFieldName('value');
        if (k && v) pairs.set(k, v);
      } else values.push(...strings(arg));
    }
    if (values.length === 0) values.push(...strings(pairs.get('value') ?? pairs.get('path')));
    out.push({ name, values, pairs });
  }
  return out;
}

/** A string or an array initializer of strings. */
function strings(n: Node | undefined | null): string[] {
  if (!n) return [];
  const one = stringValue(n);
  if (one !== undefined) return [one];
  if (n.type === 'element_value_array_initializer' || n.type === 'array_initializer')
    return n.namedChildren.map((c) => stringValue(c)).filter((x): x is string => x !== undefined);
  return [];
}

export function recogniseJava(s: SurfaceBuilder, tree: Tree): void {
  if (!/@\w*(Mapping|Listener)\b|\bvoid\s+main\s*\(/.test(s.text)) return;
  for (const cls of tree.rootNode.descendantsOfType('class_declaration')) {
    if (!cls) continue;
    const own = annotations(cls);
    const prefixes = own.find((a) => a.name === 'RequestMapping')?.values ?? [''];
    const body = cls.childForFieldName('body');
    for (const m of body?.namedChildren ?? []) {
      if (m?.type !== 'method_declaration') continue;
      const mname = m.childForFieldName('name')?.text;
      const handler = s.local(s.declaredAt(m.startPosition.row + 1, mname));
      for (const a of annotations(m)) {
        if (MAPPINGS.has(a.name)) {
          let methods: (string | null)[] = [MAPPINGS.get(a.name) ?? null];
          if (a.name === 'RequestMapping') {
            const listed = a.pairs.get('method');
            const named = listed
              ? (listed.text.match(/\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/g) ?? [])
              : [];
            if (named.length > 0) methods = named;
          }
          for (const prefix of prefixes.length > 0 ? prefixes : [''])
            for (const p of a.values.length > 0 ? a.values : ['']) {
              const path = joinRoute(prefix, p) || '/';
              const full = path.startsWith('/') ? path : `/${path}`;
              for (const method of methods)
                s.add({
                  kind: 'route',
                  method,
                  path: full,
                  name: routeName(method, full),
                  framework: 'spring',
                  at: m,
                  handler,
                });
            }
        } else if (
          a.name === 'EventListener' ||
          a.name === 'KafkaListener' ||
          a.name === 'RabbitListener' ||
          a.name === 'JmsListener'
        ) {
          const topics = [
            ...strings(a.pairs.get('topics')),
            ...strings(a.pairs.get('queues')),
            ...strings(a.pairs.get('destination')),
          ];
          const names = topics.length > 0 ? topics : a.values.length > 0 ? a.values : [mname ?? a.name];
          for (const name of names)
            s.add({
              kind: 'event_handler',
              method: null,
              path: null,
              name,
              framework: 'spring',
              at: m,
              handler,
            });
        }
      }
      const head = s.text.slice(m.startIndex, m.childForFieldName('body')?.startIndex ?? m.endIndex);
      if (mname === 'main' && /\bpublic\b/.test(head) && /\bstatic\b/.test(head) && /\bvoid\b/.test(head))
        s.markEntry(s.declaredAt(m.startPosition.row + 1, 'main'), 'java_main');
    }
  }
}
