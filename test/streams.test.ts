import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { App, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type StreamFeeder, type StreamHandler, startStreamFeeder } from '../infra/local/streams.ts';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage } from '../infra/stages.ts';
import { db } from '../shared/db/client.ts';
import { tableName } from '../shared/db/table.ts';
import { type StreamConsumer, streamConsumers } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// The local feeder of stream consumers (infra/local/streams.ts) against DynamoDB Local's real
// stream: what Lambda's event source mapping does when deployed, record for record.

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

let feeder: StreamFeeder | undefined;
afterEach(async () => {
  await feeder?.stop();
  feeder = undefined;
});

/** A consumer of test items only (entity `stream-test-<run>`), so the demo data never reaches it. */
function consumer(entity: string, overrides: Partial<StreamConsumer> = {}): StreamConsumer {
  return { id: `test-${entity}`, dir: 'none', entities: [entity], batchSize: 10, retryAttempts: 2, summary: 'test', ...overrides };
}

async function put(entity: string, id: string, value: number): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { pk: `STREAMTEST#${id}`, sk: 'ITEM', entity, value } }));
}

/** Starts a feeder for one consumer whose handler is `handle`, with quick retries. */
async function feed(
  c: StreamConsumer,
  handle: StreamHandler,
  extra: { checkpointFile?: string; log?: (line: string) => void } = {},
): Promise<StreamFeeder> {
  feeder = await startStreamFeeder({
    tableName: tableName(),
    consumers: [c],
    handlerOf: async () => handle,
    pollIntervalMs: 50,
    retryDelayMs: 10,
    log: extra.log ?? (() => {}),
    ...(extra.checkpointFile ? { checkpointFile: extra.checkpointFile } : {}),
  });
  return feeder;
}

const values = (records: DynamoDBRecord[]) => records.map((r) => Number(r.dynamodb?.NewImage?.value?.N ?? r.dynamodb?.OldImage?.value?.N));

describe('the local stream feeder', () => {
  it('hands over only its entities’ changes, in order, in batches, shaped as Lambda hands them', async () => {
    const entity = `stream-test-${Date.now()}-a`;
    const batches: DynamoDBStreamEvent[] = [];
    await feed(consumer(entity, { batchSize: 2 }), async (event) => {
      batches.push(event);
      return undefined;
    });
    await put(entity, 'a1', 1);
    await put(`${entity}-other`, 'a-other', 99);
    await put(entity, 'a1', 2);
    await put(entity, 'a2', 3);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: 'STREAMTEST#a1', sk: 'ITEM' } }));
    await feeder?.drain();

    const records = batches.flatMap((b) => b.Records);
    expect(batches.every((b) => b.Records.length <= 2)).toBe(true);
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'INSERT', 'REMOVE']);
    expect(values(records)).toEqual([1, 2, 3, 2]);
    const first = records[0] as DynamoDBRecord;
    expect(first).toMatchObject({
      eventSource: 'aws:dynamodb',
      eventVersion: expect.any(String),
      eventSourceARN: expect.stringContaining(`table/${tableName()}/stream/`),
      dynamodb: {
        Keys: { pk: { S: 'STREAMTEST#a1' }, sk: { S: 'ITEM' } },
        NewImage: { entity: { S: entity }, value: { N: '1' } },
        StreamViewType: 'NEW_AND_OLD_IMAGES',
        SequenceNumber: expect.stringMatching(/^\d+$/),
        ApproximateCreationDateTime: expect.any(Number),
      },
    });
    expect(records[1]?.dynamodb?.OldImage?.value).toEqual({ N: '1' });
  });

  it('retries a batch from the first record the handler reports failed, not the ones before it', async () => {
    const entity = `stream-test-${Date.now()}-b`;
    const seen: number[] = [];
    let failOnce = true;
    await feed(consumer(entity), async (event) => {
      const failed = event.Records.find((r) => values([r])[0] === 2 && failOnce);
      seen.push(...values(event.Records));
      if (failed) {
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: failed.dynamodb?.SequenceNumber as string }] };
      }
      return { batchItemFailures: [] };
    });
    for (const [i, value] of [1, 2, 3].entries()) await put(entity, `b${i}`, value);
    await feeder?.drain();
    // 1 is done before the failure; 2 and 3 come again.
    expect(seen.filter((v) => v === 1)).toHaveLength(1);
    expect(seen.filter((v) => v === 2)).toHaveLength(2);
    expect(seen.at(-1)).toBe(3);
  });

  it('reports a batch that keeps failing after its retries, skips it and goes on with the next records', async () => {
    const entity = `stream-test-${Date.now()}-c`;
    const lines: string[] = [];
    const delivered: number[] = [];
    let calls = 0;
    await feed(
      consumer(entity, { batchSize: 1, retryAttempts: 2 }),
      async (event) => {
        calls++;
        if (values(event.Records)[0] === 1) throw new Error('the provider is down');
        delivered.push(...values(event.Records));
        return undefined;
      },
      { log: (line) => lines.push(line) },
    );
    await put(entity, 'c1', 1);
    await put(entity, 'c2', 2);
    await feeder?.drain();
    expect(delivered).toEqual([2]);
    // The first attempt and two retries of record 1, then record 2.
    expect(calls).toBe(4);
    expect(feeder?.failures).toEqual([
      expect.objectContaining({ consumer: `test-${entity}`, records: 1, reason: 'the handler failed: Error' }),
    ]);
    expect(lines.join('\n')).toContain('skipped after 3 attempts');
  });

  it('goes on after a restart where its checkpoint says it stopped', async () => {
    const entity = `stream-test-${Date.now()}-d`;
    const folder = mkdtempSync(join(tmpdir(), 'streams-'));
    folders.push(folder);
    const checkpointFile = join(folder, 'checkpoints.json');
    const first: number[] = [];
    await feed(
      consumer(entity),
      async (event) => {
        first.push(...values(event.Records));
        return undefined;
      },
      { checkpointFile },
    );
    await put(entity, 'd1', 1);
    await feeder?.drain();
    await feeder?.stop();
    feeder = undefined;
    await put(entity, 'd2', 2);

    const second: number[] = [];
    const restarted = await feed(
      consumer(entity),
      async (event) => {
        second.push(...values(event.Records));
        return undefined;
      },
      { checkpointFile },
    );
    await restarted.drain();
    expect(first).toEqual([1]);
    expect(second).toEqual([2]);
  });
});

describe('a stream consumer in the stack', () => {
  it('is an event source mapping on the table stream: its entities only, partial failures, bisect, retries, an alarmed on-failure queue; cdk-nag clean', () => {
    const folder = mkdtempSync(join(tmpdir(), 'nag-streams-'));
    folders.push(folder);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: folder });
    const probe = consumer('zone', {
      id: 'probe',
      dir: 'transfer-poll',
      entities: ['zone', 'zoneRecord'],
      batchSize: 100,
      retryAttempts: 3,
    });
    const stack = new RegistrarStack(app, 'StreamStack', { stage: loadStage('sandbox'), streamConsumers: [probe] });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const template = deployedTemplate(stack);
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
    const entities = { S: ['zone', 'zoneRecord'] };
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'StreamArn'] }),
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: true,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ dynamodb: { NewImage: { entity: entities } } }) },
          { Pattern: JSON.stringify({ dynamodb: { OldImage: { entity: entities } } }) },
        ],
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmDescription: Match.stringLikeRegexp('stream consumer probe'),
    });
    const report = JSON.parse(readFileSync(join(folder, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
    expect(nag.violations).toEqual([]);
  }, 120_000);

  it('fed through a queue, as webhook-deliver is: a pipe from the stream (its inserts only) into a FIFO queue grouped by customer, with a dead-letter queue, consumed with partial batch failures; least privilege; cdk-nag clean', () => {
    const folder = mkdtempSync(join(tmpdir(), 'nag-queue-'));
    folders.push(folder);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: folder });
    const deliver = streamConsumers.find((c) => c.id === 'webhook-deliver') as StreamConsumer;
    expect(deliver.queue).toBeDefined();
    const stack = new RegistrarStack(app, 'QueueStack', { stage: loadStage('sandbox'), streamConsumers: [deliver] });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const template = deployedTemplate(stack);
    const streamArn = Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'StreamArn'] });
    // The pipe: the stream's notification inserts, one record a message, grouped by customer, deduplicated by id.
    template.resourceCountIs('AWS::Pipes::Pipe', 1);
    template.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: streamArn,
      SourceParameters: {
        DynamoDBStreamParameters: Match.objectLike({
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 1,
          MaximumRetryAttempts: deliver.retryAttempts,
          DeadLetterConfig: { Arn: Match.anyValue() },
        }),
        FilterCriteria: {
          Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['notification'] } } } }) }],
        },
      },
      Target: Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('^webhookdeliverqueue'), 'Arn'] }),
      TargetParameters: {
        SqsQueueParameters: { MessageGroupId: '$.dynamodb.NewImage.customer.S', MessageDeduplicationId: '$.dynamodb.NewImage.id.N' },
      },
    });
    // The delivery queue: FIFO, a dead-letter queue after maxReceiveCount receives, hidden longer than the function runs.
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      VisibilityTimeout: deliver.queue?.visibilityTimeoutSeconds,
      RedrivePolicy: {
        deadLetterTargetArn: Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('^webhookdeliverdeadletters'), 'Arn'] }),
        maxReceiveCount: deliver.queue?.maxReceiveCount,
      },
    });
    template.resourceCountIs('AWS::SQS::Queue', 3);
    // The function consumes the queue, reporting partial batch failures; nothing reads the stream but the pipe.
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: Match.objectLike({ 'Fn::GetAtt': [Match.stringLikeRegexp('^webhookdeliverqueue'), 'Arn'] }),
      BatchSize: deliver.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The pipe's role reads the stream and sends to its two queues, nothing else.
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes('webhookdeliverpiperole'),
    );
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    expect(statements.flatMap((st) => st.Action).sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        ...['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].flatMap((a) => [a, a]),
      ].sort(),
    );
    expect(JSON.stringify(statements)).not.toContain('"*"');
    // Both queues a message can end in are alarmed.
    for (const id of ['webhook-deliver', 'webhook-deliver-dead-letters']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        AlarmDescription: Match.stringLikeRegexp(`stream consumer ${id} `),
      });
    }
    const report = JSON.parse(readFileSync(join(folder, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
    expect(nag.violations).toEqual([]);
  }, 120_000);
});
