// Secrets never reach storage or the stream: the shapes they take in commands and payloads are
// replaced, and what merely looks similar is left alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor, MAX_SCAN_CHARS, REDACTED } from '../../../server/hooks/redact.ts';

const r = createRedactor(['the-hub-token-123']);

test('secrets in environment assignments, URLs, headers, flags and known token formats are redacted', () => {
  const cases: [string, string][] = [
    ['GITHUB_TOKEN=ghp_x1 git push', `GITHUB_TOKEN=${REDACTED} git push`],
    ['export AWS_SECRET_ACCESS_KEY="a b c"', `export AWS_SECRET_ACCESS_KEY=${REDACTED}`],
    ["PGPASSWORD='pw' psql", `PGPASSWORD=${REDACTED} psql`],
    ['DB_PASSWD=x NPM_AUTH=y make', `DB_PASSWD=${REDACTED} NPM_AUTH=${REDACTED} make`],
    ['git clone https://bob:hunter2@github.com/a/b', `git clone https://bob:${REDACTED}@github.com/a/b`],
    ['https://x-oauth-basic-abcdefghijklmnopqrstuvwxyz@host/r', `https://${REDACTED}@host/r`],
    [
      'curl "https://api.x.io/v1?api_key=abc123&page=2"',
      `curl "https://api.x.io/v1?api_key=${REDACTED}&page=2"`,
    ],
    ["curl -H 'Authorization: Bearer abc.def.ghi'", `curl -H 'Authorization: Bearer ${REDACTED}'`],
    ['curl -H "X-Api-Key: 0123456789"', `curl -H "X-Api-Key: ${REDACTED}"`],
    ['deploy --token=abc123 --password "p w"', `deploy --token=${REDACTED} --password ${REDACTED}`],
    ['key ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab here', `key ${REDACTED} here`],
    ['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx', REDACTED],
    ['AKIAIOSFODNN7EXAMPLE', REDACTED],
    ['xoxb-1234567890-abcdefghij', REDACTED],
    [
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      `jwt ${REDACTED}`,
    ],
    ['the hub token is the-hub-token-123!', `the hub token is ${REDACTED}!`],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', REDACTED],
  ];
  for (const [input, expected] of cases) assert.equal(r.text(input), expected, input);
});

test('ordinary text that resembles a secret is kept', () => {
  for (const text of [
    'PWD=/home/dev/repo npm test',
    'GIT_AUTHOR_NAME=Bob git commit -m "tokens are counted"',
    'max_tokens=4096 temperature=0.2',
    'https://github.com/org/repo.git',
    'echo $GITHUB_TOKEN',
    'npm run build -- --watch',
  ])
    assert.equal(r.text(text), text);
});

test('JSON values are redacted by their key as well as their text', () => {
  const out = r.value({
    password: 'p',
    nested: { api_key: 'k', access_token: 't', tokens: 3, note: 'PGPASSWORD=x psql' },
    list: [{ authorization: 'Basic abc' }],
    max_tokens: 10,
  });
  assert.deepEqual(out, {
    password: REDACTED,
    nested: { api_key: REDACTED, access_token: REDACTED, tokens: 3, note: `PGPASSWORD=${REDACTED} psql` },
    list: [{ authorization: REDACTED }],
    max_tokens: 10,
  });
});

test('hostile strings cost bounded work: scanning stops at the cap', () => {
  const huge = `${'A='.repeat(200_000)}${'x'.repeat(100_000)}`;
  const out = r.text(huge);
  assert.ok(out.length <= MAX_SCAN_CHARS);
  const nested = `${'https://a:'.repeat(50_000)}@`;
  assert.ok(r.text(nested).length <= MAX_SCAN_CHARS + 100);
});
