// Spellings of one request path that routers, proxies and URL parsers may each read differently: the
// access tests and the fuzz family `paths` send every one of them.
/**
 * Spellings of `path` that a router, a proxy or a URL parser might take for it: percent-encoded
 * (either hex case), double-encoded, mixed case, dot segments (`.`, `..`, `%2e`), repeated slashes,
 * `%2f` for a slash, a backslash, a trailing slash.
 */
export function variants(path: string): string[] {
  const [first, ...rest] = path.slice(1).split('/') as [string, ...string[]];
  const tail = rest.length ? `/${rest.join('/')}` : '';
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
  const upperHex = (c: string) => hex(c).toUpperCase();
  const out = [
    path,
    `/${hex(first[0]!)}${first.slice(1)}${tail}`,
    `/${upperHex(first[0]!)}${first.slice(1)}${tail}`,
    `/${[...first].map(hex).join('')}${tail}`,
    `/${first.slice(0, -1)}${hex(first.at(-1)!)}${tail}`,
    `/%25${hex(first[0]!).slice(1)}${first.slice(1)}${tail}`,
    `/${first.toUpperCase()}${tail}`,
    `/${first[0]!.toUpperCase()}${first.slice(1)}${tail}`,
    `/./${first}${tail}`,
    `/${first}/.${tail || '/'}`,
    `/${first}/../${first}${tail}`,
    `/x/../${first}${tail}`,
    `/%2e/${first}${tail}`,
    `/%2E%2E/${first}${tail}`,
    `/x/%2e%2e/${first}${tail}`,
    `//${first}${tail}`,
    `///${first}${tail}`,
    `/${first}/${tail}`,
    `/${first}%2f${tail.slice(1)}`,
    `/${first}%2F${tail.slice(1)}`,
    `/%2f${first}${tail}`,
    `\\${first}${tail.replaceAll('/', '\\')}`,
    `${path}/`,
    `${path}?x=1`,
    `${path}#frag`,
    `${path}%00`,
    `${path};x`,
  ];
  if (rest.length > 0) {
    out.push(
      `/${first}/${hex(rest[0]![0]!)}${rest[0]!.slice(1)}${rest.length > 1 ? `/${rest.slice(1).join('/')}` : ''}`,
    );
    out.push(`/${first}/%2e/${rest.join('/')}`);
  }
  return [...new Set(out)];
}
