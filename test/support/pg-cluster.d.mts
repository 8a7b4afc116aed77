// Types of pg-cluster.mjs (plain JavaScript, so scripts/run-tests.mjs can start a cluster without tsx).
export const PG_USER: string;
export const PG_PASSWORD: string;
export function pgBinDir(): string;
export function freePort(): Promise<number>;
export interface StartedCluster {
  host: string;
  port: number;
  dir: string;
  /** With { tls: true }: the CA that signed the server's certificate (for sslrootcert). */
  ca: string | undefined;
  adminUrl: string;
  url(db: string): string;
  psql(sql: string, db?: string): string;
  pause(): void;
  resume(): void;
  stop(): void;
}
export function startCluster(options?: { tls?: boolean }): Promise<StartedCluster>;
