import type { ZoneWriteOutcome } from '../dns/premium-charge.ts';
import { zoneVersion } from '../dns/zone.ts';
import { answerMarginMs } from './function-budget.ts';
import { ok, type Reply } from './response.ts';

/**
 * The answer of a zone write (create, update): its quote (`?quote=true`) as 200, or the zone with
 * its new ETag and, when the write was charged (a zone made PREMIUM), the charge's process in
 * `x-process-id`.
 */
export function zoneWriteAnswer(status: 200 | 201) {
  return (outcome: ZoneWriteOutcome): Reply => {
    if ('quote' in outcome) return ok(outcome.quote);
    const headers: Record<string, string> = { ETag: `"${zoneVersion(outcome.revision)}"` };
    if (outcome.processId !== undefined) headers['x-process-id'] = String(outcome.processId);
    return { status, body: outcome.view, headers };
  };
}

/**
 * Until when a zone write may go on deleting the items of the records it replaced after its commit
 * (epoch ms): the function's remaining time less what the answer needs (answerMarginMs). What is
 * left is deleted by the zone's next write (shared/db/repositories/zone-writes.ts, `retired`).
 */
export function cleanupDeadline(remainingMs: (() => number) | undefined): number | undefined {
  return remainingMs ? Date.now() + remainingMs() - answerMarginMs : undefined;
}
