import { closeSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * What `npm start` checks before it starts anything, so that a data dir or port it cannot use is
 * one clear line and a non-zero exit at once, instead of a DynamoDB Local that hangs or a stack
 * trace after a time-out.
 */

/** A start-up failure whose message is the one line to print. */
export class StartupFailure extends Error {}

/** DynamoDB Local's database file in a data dir (it runs with -sharedDb). */
export const databaseFile = 'shared-local-instance.db';

const reasons: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'this user may not write to it',
  EPERM: 'this user may not write to it',
  ENOSPC: 'its disk is full',
  EDQUOT: 'its disk quota is used up',
};
const reasonOf = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return `${reasons[code] ?? (error as Error).message} (${code})`;
};

/**
 * The data dir as DynamoDB Local will use it: created if missing; refused when it is a file, when
 * a file cannot be written in it, or when its database file cannot be opened for writing.
 * Answers the absolute path.
 */
export function checkDataDir(dataDir: string): string {
  const dir = resolve(dataDir);
  const unusable = (cause: string) => new StartupFailure(`The data dir ${dir} cannot be used: ${cause}.`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw unusable('it is a file, not a folder');
    if (code === 'ENOTDIR') throw unusable('a part of its path is a file, not a folder');
    throw unusable(`it cannot be created: ${reasonOf(error)}`);
  }
  if (!statSync(dir).isDirectory()) throw unusable('it is a file, not a folder');
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw unusable(`nothing can be written in it: ${reasonOf(error)}`);
  }
  const database = join(dir, databaseFile);
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(database);
  } catch {
    return dir;
  }
  if (!stat.isFile()) throw unusable(`its database ${databaseFile} is not a file`);
  try {
    closeSync(openSync(database, 'r+'));
  } catch (error) {
    throw unusable(`its database ${databaseFile} cannot be written: ${reasonOf(error)}`);
  }
  return dir;
}

/** Fails when `host:port` cannot be listened on (in use, not an address here, privileged); port 0 is always free. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((done, fail) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is already in use; choose another with --port N or PORT'
          : error.code === 'EACCES'
            ? 'needs privileges this user lacks; choose one above 1023 with --port N or PORT'
            : error.code === 'EADDRNOTAVAIL'
              ? 'is not available: the address is not one of this machine'
              : `cannot be listened on (${error.code ?? error.message})`;
      fail(new StartupFailure(`Port ${port} on ${host} ${why}.`));
    });
    server.listen(port, host, () => server.close(() => done()));
  });
}
