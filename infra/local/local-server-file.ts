import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Where a running `npm start` listens, written where the admin CLI looks for it, so that
 * `npm run admin` works on the local sandbox without DYNAMODB_ENDPOINT copied from the ready line:
 * `LOCAL_SERVER_FILE` when set, else `local-server.json` in the data dir (`--data-dir` / DATA_DIR),
 * else the fixed default in the temp folder. The file is the running server's (its pid) and goes
 * with it; it holds the token of the server's control path (mode 0600).
 */

export interface LocalServerInfo {
  /** The API's base URL (without /v2). */
  url: string;
  dynamodbEndpoint: string;
  tableName: string;
  pid: number;
  /** Sent as `X-Local-Control` to the server's control path (flushing its authorizer cache). */
  controlToken: string;
}

export const localServerFileName = 'local-server.json';
const defaultFile = join(tmpdir(), 'registrar-sandbox', localServerFileName);

/** The file a server with this data dir writes, and the admin CLI reads. */
export function localServerFile(dataDir: string | undefined = process.env.DATA_DIR): string {
  const explicit = process.env.LOCAL_SERVER_FILE?.trim();
  if (explicit) return explicit;
  return dataDir ? join(dataDir, localServerFileName) : defaultFile;
}

/** A fresh control token for this start. */
export const newControlToken = () => randomBytes(24).toString('base64url');

/** Writes the file (0600); answers how to remove it again, only while it is still this server's. */
export function writeLocalServerFile(file: string, info: LocalServerInfo): () => void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return () => {
    if (readLocalServerFile(file)?.pid === info.pid) rmSync(file, { force: true });
  };
}

/** Whether a process of this id is alive (a file left by a killed server is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running server the file names, or undefined (no file, unreadable, or its server is gone). */
export function readLocalServerFile(file: string): LocalServerInfo | undefined {
  let info: Partial<LocalServerInfo>;
  try {
    info = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof info.url !== 'string' || typeof info.dynamodbEndpoint !== 'string' || typeof info.pid !== 'number') return undefined;
  if (typeof info.tableName !== 'string' || typeof info.controlToken !== 'string') return undefined;
  return alive(info.pid) ? (info as LocalServerInfo) : undefined;
}

/** The control path of the local server: `POST` with the token flushes its authorizer cache (as API Gateway's FlushStageAuthorizersCache). */
export const controlPath = '/_local/flush-authorizer-cache';

/** Whether a request carries the control token (compared in constant time). */
export function carriesToken(header: string | string[] | undefined, token: string | undefined): boolean {
  if (!token || typeof header !== 'string') return false;
  const a = Buffer.from(header);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Asks the local server to drop its cached authorizer answers; true when it did. */
export async function flushLocalAuthorizerCache(info: LocalServerInfo): Promise<boolean> {
  try {
    const res = await fetch(`${info.url}${controlPath}`, { method: 'POST', headers: { 'X-Local-Control': info.controlToken } });
    return res.status === 204;
  } catch {
    return false;
  }
}
