import { writeFile } from 'node:fs/promises';
import { datasetJsonSchemaText, datasetSchemaFile } from './dataset-schema.ts';

/** `npm run dataset-schema`: writes docs/dataset.schema.json from the dataset's valibot schemas. */
await writeFile(datasetSchemaFile, datasetJsonSchemaText());
console.log('wrote docs/dataset.schema.json');
