/** What one SDK call gave, as both SDK runs (bench/sdk/ts.ts, bench/sdk/php/calls.php) report it. */
export interface Outcome {
  /** The SDK's own name of the call (`contacts.create`, `dnszones->update`). */
  call: string;
  /** The feature it belongs to, for the table. */
  area: string;
  /**
   * `counted`: the service serves the call and it counts towards the figures. `uncounted`: a call
   * no local run can satisfy (a zone retrieval needs a master at a public address answering AXFR);
   * it is run and its answer shown, but not counted.
   */
  scope: 'counted' | 'uncounted';
  ok: boolean;
  /** Why it failed (the answer's status and error type, or what the SDK threw), or a short note. */
  detail: string;
}

/** Prints the outcomes as a table and the figures; the number of counted calls that failed. */
export function report(sdk: string, outcomes: Outcome[]): number {
  const counted = outcomes.filter((o) => o.scope === 'counted');
  const passed = counted.filter((o) => o.ok).length;
  const width = Math.max(...outcomes.map((o) => o.call.length));
  console.log(`\n${sdk}\n`);
  for (const o of outcomes) {
    const mark = o.scope === 'uncounted' ? (o.ok ? 'n/a ok ' : 'n/a    ') : o.ok ? 'pass   ' : 'FAIL   ';
    console.log(`${mark} ${o.area.padEnd(13)} ${o.call.padEnd(width)}  ${o.detail}`);
  }
  const uncounted = outcomes.length - counted.length;
  console.log(`\n${sdk}: ${passed} of ${counted.length} counted calls pass; ${uncounted} not counted (no local run can satisfy them)`);
  return counted.length - passed;
}
