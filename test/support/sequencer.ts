import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order the test files start in. Vitest starts a fresh clone's files largest first, by bytes;
 * but the files that take longest are short ones that start servers (the crash test, `npm start`
 * itself, the stack synths) or write real-size data (the round trips, compression, big zones). One
 * of them started last keeps a worker busy long after the other is done. These start first, longest
 * first (as measured in full runs on a loaded two-core machine), then the rest
 * in vitest's own order.
 */
const longestFirst = [
  'crash',
  'round-trips',
  'sandbox',
  'synth-script',
  'compression',
  'big-zones',
  'admin-export',
  'infra-headroom',
  'races',
  'acme-pebble',
  'stage-settings',
  'table-grants',
];

function rank(file: TestSpecification): number {
  const at = longestFirst.findIndex((name) => file.moduleId.endsWith(`/test/${name}.test.ts`));
  return at === -1 ? longestFirst.length : at;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}
