import { toJsonSchema } from '@valibot/to-json-schema';
import { StageSettings } from './stages.ts';

/**
 * The stage file's format (stages/<name>.json) as a JSON Schema, generated from the valibot schema
 * the synth checks it with: `npm run stage-schema` writes docs/stage.schema.json, which the stage
 * files name as their `$schema`; test/stage-files.test.ts fails when the committed file differs.
 */
export function stageJsonSchema(): Record<string, unknown> {
  return {
    ...toJsonSchema(StageSettings, { errorMode: 'ignore' }),
    title: 'Registrar stage settings',
    description:
      'A deployment stage (stages/<name>.json, read at synth time by `-c stage=<name>`): its integrations and their settings, name servers, validation links, alarm e-mail and custom domain. Generated from infra/stages.ts; no secret belongs in it.',
  };
}

/** The schema file as committed: two-space JSON and a final newline. */
export function stageJsonSchemaText(): string {
  return `${JSON.stringify(stageJsonSchema(), null, 2)}\n`;
}

export const stageSchemaFile = new URL('../docs/stage.schema.json', import.meta.url).pathname;
