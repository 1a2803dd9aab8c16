import { vi } from 'vitest';

/**
 * Runs `fn` and returns the lines written to stdout and stderr meanwhile: the logger's JSON lines
 * (INFO goes to stdout, ERROR to stderr). A test file that reads logs must raise the level before
 * the logger is created: `vi.hoisted(() => { process.env.POWERTOOLS_LOG_LEVEL = 'INFO'; })`.
 */
export async function captureOutput(fn: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((l) => l !== ''),
    );
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await fn();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines;
}

/** Like captureOutput, parsed: one record per JSON log line. */
export async function captureLogs(fn: () => Promise<unknown>): Promise<Record<string, any>[]> {
  return (await captureOutput(fn)).map((line) => JSON.parse(line));
}
