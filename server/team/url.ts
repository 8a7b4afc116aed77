// The team database's URL: checked once at start, and never shown with its password. Every place that
// prints, logs or answers with the URL (cos serve's banner, cos_health, a start-up failure) goes through
// redactUrl; every error text that might quote it goes through redactSecrets.
import { parse } from 'pg-connection-string';
import { ConfigError } from '../config.ts';

export interface DatabaseTarget {
  /** What the pool connects with (the URL as given). */
  url: string;
  /** The URL with its password replaced by `***`: safe to print. */
  shown: string;
  /** host:port/database, for one-line messages. */
  name: string;
  /** The password, to scrub from any text before it leaves the hub. */
  password: string | undefined;
}

const SCHEMES = /^postgres(?:ql)?:\/\//i;

export function databaseTarget(url: string): DatabaseTarget {
  if (!SCHEMES.test(url))
    throw new ConfigError(
      `COS_DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/db), got "${redactUrl(url)}"`,
    );
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch {
    throw new ConfigError(`COS_DATABASE_URL is not a valid URL: "${redactUrl(url)}"`);
  }
  const host = parsed.host ?? 'localhost';
  const name = `${host}:${parsed.port ?? '5432'}/${parsed.database ?? parsed.user ?? ''}`;
  return { url, shown: redactUrl(url), name, password: parsed.password || undefined };
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`; also `?password=` in the query. */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&](?:password|sslpassword)=)[^&#]*/gi, '$1***');
}

/** `text` with the password (and any URL's credentials) taken out: for messages built from driver errors. */
export function redactSecrets(text: string, target: DatabaseTarget | undefined): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):[^@/?#\s]*@/gi, '$1:***@');
  if (target?.password) out = out.split(target.password).join('***');
  return out;
}
