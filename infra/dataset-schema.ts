import { toJsonSchema } from '@valibot/to-json-schema';
import { DatasetSchema } from './dataset.ts';

/**
 * The dataset format (what `npm run admin -- load` and `validate` take) as a JSON Schema,
 * generated from the valibot schemas the loader checks with, so the two cannot drift apart:
 * `npm run dataset-schema` writes docs/dataset.schema.json; test/dataset-schema.test.ts fails
 * when the committed file differs from what the schemas say. Checks JSON Schema cannot express
 * (a custom check such as "exactly one of key and keyHash", a zone record checked by its type)
 * are left out of it: `npm run admin -- validate FILE` applies them all.
 */
export function datasetJsonSchema(): Record<string, unknown> {
  return {
    ...toJsonSchema(DatasetSchema, { errorMode: 'ignore' }),
    title: 'Registrar dataset',
    description:
      'The file `npm run admin -- load` and `import` take and `export` writes (infra/demo-data.json is one). Generated from infra/dataset.ts; `npm run admin -- validate FILE` applies every check, including those JSON Schema cannot express.',
  };
}

/** The schema file as committed: two-space JSON and a final newline. */
export function datasetJsonSchemaText(): string {
  return `${JSON.stringify(datasetJsonSchema(), null, 2)}\n`;
}

export const datasetSchemaFile = new URL('../docs/dataset.schema.json', import.meta.url).pathname;
