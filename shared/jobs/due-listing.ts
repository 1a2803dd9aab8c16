/**
 * How a scheduled job works through a due listing (an index partition of entries by due time:
 * the domains' expiry steps, the PREMIUM zones' years): a page of entries at a time, `concurrency`
 * entries at once, until no entry is due or `deadline` (ms since the epoch) nears; what is left stays
 * due for the next run. `handle` takes one entry (reading its subject afresh: an entry only says
 * when to look) and keeps its own counts; its failures are counted by the caller's `failed`.
 */
export async function workThroughDue<E>(
  listPage: (start: Record<string, unknown> | undefined) => Promise<{ due: E[]; next?: Record<string, unknown> }>,
  handle: (entry: E) => Promise<void>,
  options: { deadline: number; concurrency: number },
): Promise<{ read: number; more: boolean }> {
  let read = 0;
  let more = false;
  let start: Record<string, unknown> | undefined;
  do {
    if (Date.now() >= options.deadline) {
      more = true;
      break;
    }
    const page = await listPage(start);
    start = page.next;
    read += page.due.length;
    let next = 0;
    const worker = async () => {
      while (next < page.due.length && Date.now() < options.deadline) await handle(page.due[next++] as E);
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    if (next < page.due.length) more = true;
  } while (start && !more);
  return { read, more };
}
