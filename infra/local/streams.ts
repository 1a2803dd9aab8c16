import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  type AttributeValue,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  AttributeValue as LambdaAttributeValue,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { clientConfig } from '../../shared/db/client.ts';
import { withInvocationLogger } from '../../shared/logger.ts';
import type { StreamConsumer } from '../../shared/routes.ts';

/**
 * Feeds the route table's stream consumers from DynamoDB Local's stream, the way Lambda's event
 * source mapping feeds them when deployed, so `npm start` and the tests run the same handlers on
 * the same events:
 * - records are read from every shard in order (a child shard after its parent) and handed over
 *   as a `DynamoDBStreamEvent`, each consumer keeping its own position, in order;
 * - a consumer sees only the records of its `entities` (Lambda's filter criteria on the `entity`
 *   of the new or the old image); the others are passed over without an invocation;
 * - a batch holds at most `batchSize` records and stays under Lambda's 6 MB invocation payload;
 * - a handler that answers `{ batchItemFailures }` has the batch retried from the lowest failed
 *   sequence number (the records before it are done); one that throws has it retried whole, split
 *   in halves (bisect on error); after `retryAttempts` retries the batch is reported as the
 *   on-failure destination would get it (a log line, and `failures`) and skipped;
 * - each consumer's position is kept in a checkpoint file when one is given (`npm start` with a
 *   data dir), as the deployed mapping keeps its own, so a restart goes on where it stopped.
 *
 * A consumer fed through a queue (`queue` in its declaration; deployed, an EventBridge Pipe into
 * an SQS FIFO queue, infra/stack.ts) is fed as that queue would feed it (`QueueRunner`): the
 * inserts of its entities become messages whose body is the stream record, grouped by the new
 * image's `groupBy` (a message deduplicated within 5 minutes by `deduplicateBy`); the handler gets
 * an `SQSEvent` of at most `batchSize` messages, in order within each group, and never a group
 * that has a message in flight or waiting to be received again (up to 5 invocations at once, each
 * of other groups, as Lambda scales a FIFO queue's consumers); the messages it names in `batchItemFailures`
 * (or all, if it throws) are received again after a delay that doubles each time, and after
 * `maxReceiveCount` receives go to the dead-letter queue (a log line, and `failures`); the others
 * are deleted. The queue itself lives in memory, so its position in the stream stays at the oldest
 * record whose message is not deleted: a restart sends those messages again (at least once, as SQS).
 *
 * Two differences from AWS are smoothed over here: DynamoDB Local names a TTL deletion
 * `UNKNOWN_TO_SDK_VERSION` where DynamoDB says `REMOVE` with the DynamoDB service as its
 * `userIdentity` (handed on as AWS would), and its binary attributes arrive as bytes where Lambda
 * hands base64 strings.
 */

/** A stream consumer's handler, as the deployed function exports it. */
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | undefined>;
/** The handler of a consumer fed through a queue. */
export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** What the on-failure destination would be told of a batch that kept failing. */
export interface StreamFailure {
  consumer: string;
  firstSequenceNumber: string;
  lastSequenceNumber: string;
  records: number;
  reason: string;
}

export interface StreamFeederOptions {
  tableName: string;
  consumers: readonly StreamConsumer[];
  /** The handler of a consumer; default: `functions/<dir>/handler.ts`'s `handler`. */
  handlerOf?: (consumer: StreamConsumer) => Promise<StreamHandler | QueueHandler>;
  /** Where the consumers' positions are kept across restarts; none: they start at the oldest record. */
  checkpointFile?: string;
  log?: (line: string) => void;
  /** How often an idle stream is read again, in ms (Lambda polls each shard about 4 times a second). */
  pollIntervalMs?: number;
  /** The first retry's delay, in ms; each further one doubles it, up to 5 s. */
  retryDelayMs?: number;
}

export interface StreamFeeder {
  /** Resolves once every record written before the call has been handed to (or filtered out for) every consumer. */
  drain(timeoutMs?: number): Promise<void>;
  /** Batches that kept failing, as the on-failure destination would get them. */
  readonly failures: readonly StreamFailure[];
  stop(): Promise<void>;
}

/** Lambda's limit on an invocation's payload. */
const invocationPayloadLimit = 6 * 1024 * 1024;
const serviceIdentity = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };

/** Starts feeding `consumers` from the stream of `tableName`; stop() ends it. */
export async function startStreamFeeder(options: StreamFeederOptions): Promise<StreamFeeder> {
  const config = clientConfig();
  const dynamo = new DynamoDBClient(config);
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
  dynamo.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream: create it from shared/db/table.ts (ensureTable)`);
  const reader = new StreamReader(new DynamoDBStreamsClient(config), streamArn);
  const checkpoints = new Checkpoints(options.checkpointFile, streamArn);
  const log = options.log ?? console.log;
  const failures: StreamFailure[] = [];
  const runners = options.consumers.map((consumer) => {
    const settings = {
      handler: (options.handlerOf ?? defaultHandlerOf)(consumer),
      checkpoints,
      failures,
      log,
      retryDelayMs: options.retryDelayMs ?? 200,
    };
    return consumer.queue
      ? new QueueRunner(consumer, consumer.queue, reader, settings)
      : new ConsumerRunner(consumer, reader, settings as RunnerSettings<StreamHandler>);
  });
  let stopped = false;
  const pollInterval = options.pollIntervalMs ?? 250;
  const readLoop = (async () => {
    while (!stopped) {
      try {
        const more = await reader.poll();
        reader.dropBelow(Math.min(reader.end, ...runners.map((r) => r.position)));
        if (!more) await sleep(pollInterval);
      } catch (error) {
        log(`stream of ${options.tableName}: ${(error as Error).message}`);
        await sleep(1000);
      }
    }
  })();
  const runLoops = runners.map((runner) => runner.run(() => stopped));

  return {
    failures,
    async drain(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const asked = Date.now();
      while (reader.caughtUpAt <= asked || runners.some((r) => !r.idleAt(reader.end))) {
        if (stopped) throw new Error('the stream feeder was stopped');
        if (Date.now() > deadline) throw new Error(`the stream was not drained within ${timeoutMs} ms`);
        await sleep(25);
      }
    },
    async stop() {
      stopped = true;
      await Promise.all([readLoop, ...runLoops]);
      checkpoints.flush();
      reader.client.destroy();
    },
  };
}

async function defaultHandlerOf(consumer: StreamConsumer): Promise<StreamHandler | QueueHandler> {
  const module = (await import(`../../functions/${consumer.dir}/handler.ts`)) as { handler: StreamHandler | QueueHandler };
  return module.handler;
}

/**
 * Reads the stream's records, in order, into a log the consumers read from; drops what every
 * consumer has passed.
 */
class StreamReader {
  private records: DynamoDBRecord[] = [];
  /** Absolute index of records[0]. */
  private dropped = 0;
  private readonly iterators = new Map<string, string | undefined>();
  private readonly lastSequence = new Map<string, string>();
  private readonly finished = new Set<string>();
  private shards: Shard[] = [];
  /** When the last poll that found nothing new on any shard started (ms since the epoch). */
  caughtUpAt = 0;

  constructor(
    readonly client: DynamoDBStreamsClient,
    private readonly arn: string,
  ) {}

  /** Absolute index one past the newest record read. */
  get end(): number {
    return this.dropped + this.records.length;
  }

  /** The records from absolute index `from` on. */
  from(from: number): DynamoDBRecord[] {
    return this.records.slice(Math.max(0, from - this.dropped));
  }

  /** Forgets the records before absolute index `below`. */
  dropBelow(below: number): void {
    const count = below - this.dropped;
    if (count > 1000 || (count > 0 && count === this.records.length)) {
      this.records = this.records.slice(count);
      this.dropped = below;
    }
  }

  /** Reads what is new on every readable shard; true when it found records. */
  async poll(): Promise<boolean> {
    const started = Date.now();
    await this.describe();
    let found = false;
    for (const shard of this.shards) {
      const id = shard.ShardId as string;
      if (this.finished.has(id)) continue;
      // A child shard is read once its parent is done (or gone from the stream).
      const parent = shard.ParentShardId;
      if (parent && !this.finished.has(parent) && this.shards.some((s) => s.ShardId === parent)) continue;
      found = (await this.readShard(id)) || found;
    }
    if (!found) this.caughtUpAt = started;
    return found;
  }

  private async describe(): Promise<void> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await this.client.send(new DescribeStreamCommand({ StreamArn: this.arn, ExclusiveStartShardId: start }));
      shards.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    this.shards = shards;
  }

  private async iterator(shardId: string): Promise<string | undefined> {
    if (this.iterators.has(shardId)) return this.iterators.get(shardId);
    const after = this.lastSequence.get(shardId);
    const out = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.arn,
        ShardId: shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return out.ShardIterator;
  }

  private async readShard(shardId: string): Promise<boolean> {
    let found = false;
    for (let pages = 0; pages < 10; pages++) {
      const iterator = await this.iterator(shardId);
      if (!iterator) {
        this.finished.add(shardId);
        return found;
      }
      let out: GetRecordsCommandOutput;
      try {
        out = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      } catch (error) {
        if ((error as Error).name === 'ExpiredIteratorException') {
          this.iterators.delete(shardId);
          continue;
        }
        throw error;
      }
      const records = out.Records ?? [];
      for (const record of records) this.records.push(toLambdaRecord(record, this.arn));
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) this.lastSequence.set(shardId, last);
      this.iterators.set(shardId, out.NextShardIterator);
      if (!out.NextShardIterator) this.finished.add(shardId);
      if (records.length === 0) return found;
      found = true;
    }
    return found;
  }
}

interface RunnerSettings<H = StreamHandler | QueueHandler> {
  handler: Promise<H>;
  checkpoints: Checkpoints;
  failures: StreamFailure[];
  log: (line: string) => void;
  retryDelayMs: number;
}

/** One consumer's event source mapping: its position, its batches, its retries. */
class ConsumerRunner {
  /** Absolute index of the next record to look at. */
  position = 0;
  private busy = false;
  /** The last record handled before a restart, from the checkpoint: what is not newer is passed. */
  private readonly resumeAfter: bigint | undefined;

  constructor(
    private readonly consumer: StreamConsumer,
    private readonly reader: StreamReader,
    private readonly settings: RunnerSettings<StreamHandler>,
  ) {
    const saved = settings.checkpoints.get(consumer.id);
    this.resumeAfter = saved ? BigInt(saved) : undefined;
  }

  /** True when it has handled everything before absolute index `end` and is not handling anything. */
  idleAt(end: number): boolean {
    return !this.busy && this.position >= end;
  }

  async run(stopped: () => boolean): Promise<void> {
    let handler: StreamHandler;
    try {
      handler = await this.settings.handler;
    } catch (error) {
      this.settings.log(`stream consumer ${this.consumer.id} could not be loaded: ${(error as Error).message}`);
      return;
    }
    let attempts = 0;
    let limit = this.consumer.batchSize;
    while (!stopped()) {
      this.busy = true;
      const batch = this.nextBatch(limit);
      if (batch.length === 0) {
        this.busy = false;
        await sleep(25);
        continue;
      }
      const failedFrom = await this.invoke(handler, batch);
      if (failedFrom === undefined) {
        this.advancePast(batch.length, batch);
        attempts = 0;
        limit = this.consumer.batchSize;
        continue;
      }
      // The records before the first failure are done; the rest is retried.
      this.advancePast(failedFrom.index, batch);
      const rest = batch.slice(failedFrom.index);
      attempts++;
      if (attempts > this.consumer.retryAttempts) {
        this.report(rest, failedFrom.reason, attempts);
        this.advancePast(rest.length, rest);
        attempts = 0;
        limit = this.consumer.batchSize;
        continue;
      }
      if (failedFrom.thrown) limit = Math.max(1, Math.ceil(rest.length / 2));
      this.busy = false;
      await sleep(Math.min(this.settings.retryDelayMs * 2 ** (attempts - 1), 5000));
    }
    this.busy = false;
  }

  /** The records of the next batch: skips (and passes) records of other entities; stops at the size limits. */
  private nextBatch(limit: number): DynamoDBRecord[] {
    const batch: DynamoDBRecord[] = [];
    let bytes = 0;
    for (const record of this.reader.from(this.position)) {
      if (!this.wants(record) || this.handledBeforeRestart(record)) {
        if (batch.length === 0) {
          this.position++;
          this.checkpoint(record);
          continue;
        }
        break;
      }
      const size = Buffer.byteLength(JSON.stringify(record));
      if (batch.length >= limit || (batch.length > 0 && bytes + size > invocationPayloadLimit - 1024)) break;
      batch.push(record);
      bytes += size;
    }
    return batch;
  }

  private handledBeforeRestart(record: DynamoDBRecord): boolean {
    const sequence = record.dynamodb?.SequenceNumber;
    return this.resumeAfter !== undefined && sequence !== undefined && BigInt(sequence) <= this.resumeAfter;
  }

  private wants(record: DynamoDBRecord): boolean {
    if (this.consumer.eventNames && !this.consumer.eventNames.includes(record.eventName ?? 'INSERT')) return false;
    const entity = record.dynamodb?.NewImage?.entity?.S ?? record.dynamodb?.OldImage?.entity?.S;
    return entity !== undefined && this.consumer.entities.includes(entity);
  }

  /** Hands the batch over; the index of the first record to retry, or undefined when all succeeded. */
  private async invoke(
    handler: StreamHandler,
    batch: DynamoDBRecord[],
  ): Promise<{ index: number; reason: string; thrown: boolean } | undefined> {
    const started = Date.now();
    const context = invocationContext(this.consumer.id, started);
    try {
      const answer = await withInvocationLogger(context, () => handler({ Records: batch }, context));
      const failed = answer?.batchItemFailures ?? [];
      if (failed.length === 0) return undefined;
      const indexes = failed.map((f) => batch.findIndex((r) => r.dynamodb?.SequenceNumber === f.itemIdentifier));
      // An identifier that names no record of the batch fails the whole batch, as Lambda does.
      const index = indexes.some((i) => i < 0) ? 0 : Math.min(...indexes);
      return { index, reason: `the handler reported ${failed.length} failed record(s)`, thrown: false };
    } catch (error) {
      return { index: 0, reason: `the handler failed: ${(error as Error).name}`, thrown: true };
    }
  }

  private advancePast(count: number, batch: DynamoDBRecord[]): void {
    if (count <= 0) return;
    this.position += count;
    this.checkpoint(batch[count - 1] as DynamoDBRecord);
  }

  private checkpoint(record: DynamoDBRecord): void {
    const sequence = record.dynamodb?.SequenceNumber;
    if (sequence) this.settings.checkpoints.set(this.consumer.id, sequence);
  }

  private report(batch: DynamoDBRecord[], reason: string, attempts: number): void {
    const failure: StreamFailure = {
      consumer: this.consumer.id,
      firstSequenceNumber: batch[0]?.dynamodb?.SequenceNumber ?? '',
      lastSequenceNumber: batch.at(-1)?.dynamodb?.SequenceNumber ?? '',
      records: batch.length,
      reason,
    };
    this.settings.failures.push(failure);
    this.settings.log(
      `stream consumer ${this.consumer.id}: ${batch.length} record(s) skipped after ${attempts} attempts (${reason}); ` +
        `sequence ${failure.firstSequenceNumber}..${failure.lastSequenceNumber}`,
    );
  }
}

/** A message of the local queue: the stream record it carries and where it stands. */
interface QueuedMessage {
  record: DynamoDBRecord;
  messageId: string;
  group: string;
  deduplicationId: string;
  sentAt: number;
  receives: number;
  /** When it may be received (again), ms since the epoch. */
  visibleAt: number;
}

/** The Lambda context of one local invocation of `functionName` started at `started`: a minute to run, as the stack gives it. */
function invocationContext(functionName: string, started: number): Context {
  return {
    functionName,
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => Math.max(0, 60_000 - (Date.now() - started)),
  } as Context;
}

/** Invocations at once: Lambda's SQS poller hands batches of different message groups to concurrent invocations. */
const queueConcurrency = 5;
/** How long SQS FIFO remembers a deduplication id. */
const deduplicationMs = 5 * 60_000;
/** The local queue's ARN, as the deployed one would be named. */
const localQueueArn = (consumer: StreamConsumer) => `arn:aws:sqs:local:000000000000:${consumer.id}.fifo`;

/**
 * One consumer fed through a queue: the pipe from the stream into the FIFO queue and the queue's
 * event source mapping (see the module comment).
 */
class QueueRunner {
  /** Absolute index of the next stream record to look at. */
  position = 0;
  private busy = false;
  private readonly messages: QueuedMessage[] = [];
  private readonly recentlySent = new Map<string, number>();
  private readonly resumeAfter: bigint | undefined;
  private lastSequence: string | undefined;

  constructor(
    private readonly consumer: StreamConsumer,
    private readonly queue: NonNullable<StreamConsumer['queue']>,
    private readonly reader: StreamReader,
    private readonly settings: RunnerSettings,
  ) {
    const saved = settings.checkpoints.get(consumer.id);
    this.resumeAfter = saved ? BigInt(saved) : undefined;
  }

  /** True when every record before absolute index `end` was sent and every message deleted or dead-lettered. */
  idleAt(end: number): boolean {
    return !this.busy && this.position >= end && this.messages.length === 0;
  }

  async run(stopped: () => boolean): Promise<void> {
    let handler: QueueHandler;
    try {
      handler = (await this.settings.handler) as QueueHandler;
    } catch (error) {
      this.settings.log(`stream consumer ${this.consumer.id} could not be loaded: ${(error as Error).message}`);
      return;
    }
    const inFlight = new Set<Promise<void>>();
    while (!stopped()) {
      this.send();
      const batch = inFlight.size < queueConcurrency ? this.nextBatch(Date.now()) : [];
      if (batch.length === 0) {
        this.busy = inFlight.size > 0;
        this.checkpoint();
        await Promise.race([...inFlight, sleep(25)]);
        continue;
      }
      this.busy = true;
      // In flight: hidden, and its group held, until the invocation answers.
      for (const message of batch) message.visibleAt = Number.POSITIVE_INFINITY;
      const invocation: Promise<void> = this.invoke(handler, batch)
        .then((failed) => this.settle(batch, failed))
        .finally(() => inFlight.delete(invocation));
      inFlight.add(invocation);
    }
    await Promise.all(inFlight);
    this.busy = false;
  }

  /** Deletes what succeeded; what failed is received again after a delay, or dead-lettered after maxReceiveCount receives. */
  private settle(batch: QueuedMessage[], failed: Set<string>): void {
    for (const message of batch) {
      if (!failed.has(message.messageId)) {
        this.delete(message);
      } else if (message.receives >= this.queue.maxReceiveCount) {
        this.delete(message);
        this.deadLetter(message);
      } else {
        message.visibleAt = Date.now() + Math.min(this.settings.retryDelayMs * 2 ** (message.receives - 1), 5000);
      }
    }
    this.checkpoint();
  }

  /** The pipe: the new stream records of its entities' inserts become messages (deduplicated as SQS FIFO does). */
  private send(): void {
    for (const record of this.reader.from(this.position)) {
      this.position++;
      const sequence = record.dynamodb?.SequenceNumber;
      if (sequence) this.lastSequence = sequence;
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== 'INSERT' || !image || !this.consumer.entities.includes(image.entity?.S ?? '')) continue;
      if (this.resumeAfter !== undefined && sequence !== undefined && BigInt(sequence) <= this.resumeAfter) continue;
      const sentAt = Date.now();
      const deduplicationId = attributeText(image[this.queue.deduplicateBy]);
      for (const [id, at] of this.recentlySent) if (at < sentAt - deduplicationMs) this.recentlySent.delete(id);
      if (this.recentlySent.has(deduplicationId)) continue;
      this.recentlySent.set(deduplicationId, sentAt);
      const group = attributeText(image[this.queue.groupBy]);
      this.messages.push({ record, messageId: randomUUID(), group, deduplicationId, sentAt, receives: 0, visibleAt: 0 });
    }
  }

  /**
   * The next batch, as a FIFO queue hands it over: messages in order, at most batchSize, none of a
   * group whose oldest message is waiting to be received again (nor any later one of that group).
   */
  private nextBatch(at: number): QueuedMessage[] {
    const held = new Set<string>();
    const batch: QueuedMessage[] = [];
    for (const message of this.messages) {
      if (batch.length >= this.consumer.batchSize) break;
      if (held.has(message.group)) continue;
      if (message.visibleAt > at) {
        held.add(message.group);
        continue;
      }
      batch.push(message);
    }
    return batch;
  }

  /** Hands the batch over; the ids of the messages to receive again. */
  private async invoke(handler: QueueHandler, batch: QueuedMessage[]): Promise<Set<string>> {
    const started = Date.now();
    const context = invocationContext(this.consumer.id, started);
    for (const message of batch) message.receives++;
    const event: SQSEvent = { Records: batch.map((m) => this.sqsRecord(m, started)) };
    try {
      const answer = await withInvocationLogger(context, () => handler(event, context));
      const named = new Set((answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      // An identifier that names no message of the batch fails the whole batch, as Lambda does.
      if ([...named].some((id) => !batch.some((m) => m.messageId === id))) return new Set(batch.map((m) => m.messageId));
      // FIFO: a group's later messages are not done before its earlier one.
      const failed = new Set<string>();
      const failedGroups = new Set<string>();
      for (const m of batch) {
        if (!named.has(m.messageId) && !failedGroups.has(m.group)) continue;
        failed.add(m.messageId);
        failedGroups.add(m.group);
      }
      return failed;
    } catch (error) {
      this.settings.log(`stream consumer ${this.consumer.id}: the handler failed: ${(error as Error).name}`);
      return new Set(batch.map((m) => m.messageId));
    }
  }

  private sqsRecord(message: QueuedMessage, at: number): SQSRecord {
    const body = JSON.stringify(message.record);
    return {
      messageId: message.messageId,
      receiptHandle: `${message.messageId}#${message.receives}`,
      body,
      attributes: {
        ApproximateReceiveCount: String(message.receives),
        SentTimestamp: String(message.sentAt),
        SenderId: 'pipes.amazonaws.com',
        ApproximateFirstReceiveTimestamp: String(at),
        SequenceNumber: message.record.dynamodb?.SequenceNumber ?? '',
        MessageGroupId: message.group,
        MessageDeduplicationId: message.deduplicationId,
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: localQueueArn(this.consumer),
      awsRegion: 'local',
    };
  }

  private delete(message: QueuedMessage): void {
    const index = this.messages.indexOf(message);
    if (index >= 0) this.messages.splice(index, 1);
  }

  private deadLetter(message: QueuedMessage): void {
    const sequence = message.record.dynamodb?.SequenceNumber ?? '';
    const reason = `received ${message.receives} times without success`;
    this.settings.failures.push({
      consumer: this.consumer.id,
      firstSequenceNumber: sequence,
      lastSequenceNumber: sequence,
      records: 1,
      reason,
    });
    this.settings.log(
      `stream consumer ${this.consumer.id}: message ${message.messageId} moved to the dead-letter queue (${reason}); sequence ${sequence}`,
    );
  }

  /** The position kept: just before the oldest record whose message is not deleted, else the last record read. */
  private checkpoint(): void {
    const oldest = this.messages.reduce<bigint | undefined>((min, m) => {
      const sequence = m.record.dynamodb?.SequenceNumber;
      if (!sequence) return min;
      const value = BigInt(sequence);
      return min === undefined || value < min ? value : min;
    }, undefined);
    const kept = oldest !== undefined ? (oldest - 1n).toString() : this.lastSequence;
    if (kept === undefined || kept === this.settings.checkpoints.get(this.consumer.id)) return;
    this.settings.checkpoints.set(this.consumer.id, kept);
  }
}

/** A key attribute's value as text (a string or a number). */
function attributeText(value: LambdaAttributeValue | undefined): string {
  return value?.S ?? value?.N ?? '';
}

/** Each consumer's last handled sequence number, kept in a file when one is given. */
class Checkpoints {
  private readonly positions: Record<string, string>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string | undefined,
    private readonly streamArn: string,
  ) {
    const saved =
      file && existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as { streamArn?: string; positions?: Record<string, string> })
        : {};
    this.positions = saved.streamArn === streamArn ? { ...saved.positions } : {};
  }

  get(consumer: string): string | undefined {
    return this.positions[consumer];
  }

  set(consumer: string, sequence: string): void {
    this.positions[consumer] = sequence;
    // Written at most a few times a second, and on stop.
    if (this.file && !this.timer) this.timer = setTimeout(() => this.flush(), 200);
  }

  /** Writes the positions now, atomically: a crash leaves the old file or the new one. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file) return;
    writeFileSync(`${this.file}.tmp`, JSON.stringify({ streamArn: this.streamArn, positions: this.positions }));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

/** The record as Lambda hands it over (see the module comment for what differs locally). */
export function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  const known = record.eventName === 'INSERT' || record.eventName === 'MODIFY' || record.eventName === 'REMOVE';
  const identity = record.userIdentity;
  const userIdentity = identity
    ? { type: identity.Type ?? '', principalId: identity.PrincipalId ?? '' }
    : known
      ? undefined
      : serviceIdentity;
  return {
    eventID: record.eventID,
    eventName: known ? (record.eventName as 'INSERT' | 'MODIFY' | 'REMOVE') : 'REMOVE',
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    ...(userIdentity ? { userIdentity } : {}),
    dynamodb: {
      ...(change.ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(change.ApproximateCreationDateTime.getTime() / 1000) }
        : {}),
      ...(change.Keys ? { Keys: image(change.Keys) } : {}),
      ...(change.NewImage ? { NewImage: image(change.NewImage) } : {}),
      ...(change.OldImage ? { OldImage: image(change.OldImage) } : {}),
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType,
    },
  };
}

function image(values: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, attribute(value)]));
}

function attribute(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.M !== undefined) return { M: image(value.M) };
  if (value.L !== undefined) return { L: value.L.map(attribute) };
  return value as LambdaAttributeValue;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
