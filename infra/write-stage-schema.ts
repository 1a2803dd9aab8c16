import { writeFile } from 'node:fs/promises';
import { stageJsonSchemaText, stageSchemaFile } from './stage-schema.ts';

/** `npm run stage-schema`: writes docs/stage.schema.json from the stage file's valibot schema. */
await writeFile(stageSchemaFile, stageJsonSchemaText());
console.log('wrote docs/stage.schema.json');
