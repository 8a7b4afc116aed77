// Secrets out of everything a hook reports, before it is stored, streamed or answered: tokens, keys and
// passwords in environment assignments, URLs, headers, command-line flags, well-known token formats and
// JSON keys that name a secret. Every pattern is linear (no nested quantifiers) and runs over a string
// already capped in length, so a hostile payload cannot make redaction hold the thread.

export const REDACTED = '[REDACTED]';

/** Longest string redaction scans; the rest of a longer one is dropped before scanning. */
export const MAX_SCAN_CHARS = 16_384;

// A name that says it holds a secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, AWS_SECRET_ACCESS_KEY, PGPASSWORD…
// (PWD, the working directory, is not one.)
const SECRET_NAME =
  /(?:PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SESSION_?KEY|SIGNING_?KEY|CREDENTIALS?|(?:^|_)(?:TOKEN|SECRET|AUTH|COOKIE)(?:$|_))/i;

const PATTERNS: readonly [RegExp, (match: string, ...groups: string[]) => string][] = [
  // PEM private keys, whole.
  [
    /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\s\S]{0,8000}?-----END [A-Z ]{0,40}PRIVATE KEY-----/g,
    () => REDACTED,
  ],
  // Environment assignments: `export GITHUB_TOKEN=abc`, `API_KEY="x y" cmd`, `PGPASSWORD='p' psql`.
  [
    /\b([A-Za-z_][A-Za-z0-9_]{0,80})=("[^"\n]{0,2000}"|'[^'\n]{0,2000}'|[^\s"';&|]{1,2000})/g,
    (m, name = '') => (SECRET_NAME.test(name) ? `${name}=${REDACTED}` : m),
  ],
  // Credentials in URLs: https://user:pass@host, https://<token>@host.
  [
    /\b([a-z][a-z0-9+.-]{0,20}:\/\/)([^\s/:@]{1,200}):([^\s/@]{1,200})@/gi,
    (_m, s, u) => `${s}${u}:${REDACTED}@`,
  ],
  [/\b([a-z][a-z0-9+.-]{0,20}:\/\/)([A-Za-z0-9_-]{20,200})@/gi, (_m, s) => `${s}${REDACTED}@`],
  // Secrets in query strings.
  [
    /([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|client_secret|password|passwd|pwd|auth|signature|sig|x-amz-signature|x-amz-credential)=)[^&\s#"']{1,2000}/gi,
    (_m, p) => `${p}${REDACTED}`,
  ],
  // Authorization headers and their command-line spellings.
  [
    /\b((?:proxy-)?authorization\s*[:=]\s*["']?(?:bearer|basic|token|digest)?\s*)[^\s"',;]{4,2000}/gi,
    (_m, p) => `${p}${REDACTED}`,
  ],
  [
    /\b((?:x-api-key|api-key|x-auth-token|x-access-token|private-token|cookie)\s*:\s*)[^\s"',;]{4,2000}/gi,
    (_m, p) => `${p}${REDACTED}`,
  ],
  // Flags: --password x, --token=x, --api-key "x", -p for mysql-style tools stays (too ambiguous).
  [
    /(--(?:password|passwd|pass|token|auth-token|access-token|api-key|apikey|secret|client-secret|private-key)(?:=|\s+))("[^"\n]{0,2000}"|'[^'\n]{0,2000}'|[^\s"']{1,2000})/gi,
    (_m, p) => `${p}${REDACTED}`,
  ],
  // Well-known token formats wherever they appear.
  [
    /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{20,255}|glpat-[A-Za-z0-9_-]{20,255}|xox[abprs]-[A-Za-z0-9-]{10,255}|npm_[A-Za-z0-9]{30,255}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,255}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,255}|SG\.[A-Za-z0-9_-]{16,100}\.[A-Za-z0-9_-]{16,100})\b/g,
    () => REDACTED,
  ],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{8,4000}\b/g, () => REDACTED],
];

export interface Redactor {
  /** The text with every secret it recognises replaced by [REDACTED]. */
  text(value: string): string;
  /**
   * A copy of a JSON value with secrets redacted: strings are scanned, and the value of a key that
   * names a secret (password, token, api_key, authorization…) is replaced whole.
   */
  value(value: unknown): unknown;
}

/** A key whose string value is a secret by its name alone. */
const SECRET_KEY =
  /^(?:.*(?:password|passwd|passphrase|secret|api[-_]?key|access[-_]?key|private[-_]?key|credentials?|authorization|cookie|session[-_]?key)|token|.*[-_]token|auth)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function createRedactor(extraSecrets: readonly string[] = []): Redactor {
  // Secrets the hub knows itself (its token) are replaced wherever they appear, whatever their shape.
  const known = extraSecrets.filter((s) => s.length >= 6);
  const text = (input: string): string => {
    let s = input.length > MAX_SCAN_CHARS ? input.slice(0, MAX_SCAN_CHARS) : input;
    for (const secret of known) if (s.includes(secret)) s = s.split(secret).join(REDACTED);
    for (const [re, replace] of PATTERNS) s = s.replace(re, replace as (m: string) => string);
    return s;
  };
  const value = (input: unknown, key?: string): unknown => {
    if (typeof input === 'string') return key !== undefined && SECRET_KEY.test(key) ? REDACTED : text(input);
    if (Array.isArray(input)) return input.map((v) => value(v));
    if (input !== null && typeof input === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(input)) out[k] = value(v, k);
      return out;
    }
    return input;
  };
  return { text, value: (v) => value(v) };
}
