import * as v from 'valibot';

/** A registry as `GET /v2/providers/{name}` answers it (the SDKs' Provider models): its name and the TLDs it serves. */
export const Provider = v.strictObject({
  name: v.string(),
  tlds: v.pipe(v.array(v.string()), v.description('The extensions the registry serves (second-level ones included, e.g. `co.uk`).')),
});
export type Provider = v.InferOutput<typeof Provider>;
