/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles only (see infra/bundling.ts).
 * The SDK's protocol layer loads that module lazily, and only for operations with event-stream
 * members; DynamoDB has none, so the module is never loaded and its code only weighs on the bundle.
 * Should an operation ever need it, it fails loudly here instead of misbehaving.
 */
function notBundled(): never {
  throw new Error('Event streams are not bundled into this function: DynamoDB has no event-stream operations.');
}

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = (): never => notBundled();
