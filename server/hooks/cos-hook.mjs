#!/usr/bin/env node
// The command hook `cos connect` installs for clients whose hooks run a command (Codex, Gemini CLI, and
// Claude Code's SessionStart): reads the hook input JSON on stdin, posts it to the hub, and prints the
// hub's answer (the client's hook output JSON) on stdout. It never slows or breaks the agent: whatever
// goes wrong (hub down, slow, refusing, a bad answer), it prints nothing and exits 0 within 850 ms of the
// process starting (node's own start-up included), so the agent waits under a second for a hook whatever
// the hub does.
// Plain JavaScript with node: built-ins only, so it starts in tens of milliseconds.
//
//   node cos-hook.mjs <client> <hub-url>      e.g. node cos-hook.mjs codex http://127.0.0.1:9188
//
// COS_HUB_TOKEN, when set in the agent's environment, is sent as the bearer token.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

// Counted from the process's start, not from this line: node's start-up (about 100 ms on a quiet machine,
// far more on a loaded one) is part of what the agent waits for.
const DEADLINE_MS = 850;
const remaining = () => Math.max(0, Math.floor(DEADLINE_MS - performance.now()));
const MAX_BYTES = 2 * 1024 * 1024;
const [client = 'unknown', base = 'http://127.0.0.1:9188'] = process.argv.slice(2);

const quit = () => process.exit(0);
// Fail open: past the deadline, whatever is still pending is abandoned.
setTimeout(quit, remaining()).unref();

const chunks = [];
let size = 0;
process.stdin.on('data', (chunk) => {
  size += chunk.length;
  if (size <= MAX_BYTES) chunks.push(chunk);
});
process.stdin.on('error', quit);
process.stdin.on('end', () => {
  if (size === 0 || size > MAX_BYTES) return quit();
  let url;
  try {
    url = new URL(`${base.replace(/\/+$/, '')}/api/hooks/events?client=${encodeURIComponent(client)}`);
  } catch {
    return quit();
  }
  const body = Buffer.concat(chunks);
  const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
  if (process.env.COS_HUB_TOKEN) headers.authorization = `Bearer ${process.env.COS_HUB_TOKEN}`;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = send(url, { method: 'POST', headers, timeout: Math.max(1, remaining()) }, (res) => {
    const out = [];
    res.on('data', (c) => out.push(c));
    res.on('error', quit);
    res.on('end', () => {
      const text = Buffer.concat(out).toString('utf8').trim();
      const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
      // Only a JSON object is a hook answer; `{}` means no decision, which is the same as silence.
      if (ok && text.startsWith('{') && text.endsWith('}') && text !== '{}') process.stdout.write(text, quit);
      else quit();
    });
  });
  req.on('timeout', () => req.destroy());
  req.on('error', quit);
  req.end(body);
});
