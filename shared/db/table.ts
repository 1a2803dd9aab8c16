/**
 * The single table, defined once: the CDK stack, the local sandbox and the tests all build the
 * table from this description, so they cannot drift apart.
 */
export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items whose `expiresAt` (epoch seconds) has passed are deleted by DynamoDB's TTL. */
  ttlAttribute: 'expiresAt',
  /**
   * Every change is published on the table's stream with both images, so that work which must
   * follow a write (a zone pushed to the DNS provider, a notification delivered) is carried by
   * the stream rather than by a second write path (`streamConsumers` in shared/routes.ts).
   */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /**
   * gsi1: per-customer listings (keys, domains, zones, processes, certificates, customers) and the
   * poller's due transfers; gsi2: a customer's processes by status, notifications (shared/db/keys.ts).
   */
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    /**
     * gsi1 again, keys only: a listing skips its `offset` over it (about 100 bytes an entry instead
     * of the whole item) and reads only its page from gsi1 (shared/db/repositories/processes.ts,
     * skipProcesses). One index: CloudFormation adds one GSI per table update.
     */
    { indexName: 'gsi1keys', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'KEYS_ONLY' },
    /**
     * gsi2 again, keys only: a status listing skips its `offset` over it. Added after gsi1keys:
     * CloudFormation creates one GSI per table update, so a deployed table gets gsi1keys from one
     * deployment and this one from the next (docs/performance.md, "Skipping over keys").
     */
    { indexName: 'gsi2keys', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'KEYS_ONLY' },
    /**
     * gsi1 again, with the small attributes a process listing filters and searches on (and the
     * stored `detailStatus`, derived from the process's details when it is written): a listing
     * with filters no index answers checks them here, about 250 bytes an entry, and reads whole
     * only the processes of its page (shared/db/repositories/processes.ts, readProcessSummaries).
     * Added after gsi2keys: one GSI per table update (docs/performance.md, "Filtering over summaries").
     */
    {
      indexName: 'gsi1list',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      projection: 'INCLUDE',
      nonKeyAttributes: ['id', 'status', 'type', 'action', 'identifier', 'createdDate', 'detailStatus'],
    },
    /**
     * gsi2 again, with the same attributes: a listing whose exact status (or detailStatus, which
     * implies one) names its status partition, with further filters, checks them on that
     * partition's summaries only. Added after gsi1list, in the next table update.
     */
    {
      indexName: 'gsi2list',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projection: 'INCLUDE',
      nonKeyAttributes: ['id', 'status', 'type', 'action', 'identifier', 'createdDate', 'detailStatus'],
    },
    /**
     * Sparse: a customer's items of a domain name's collection (the domain, the zone's header and
     * records, its DNS standing) under `DOMAIN#<name>#OF#<customer>`, sorted by their own sort key
     * (no second copy of it on every record), so the zone GET reads the
     * caller's whole zone in one Query and another customer's zone, however big, is a partition it
     * never touches (shared/db/keys.ts, `owned`). Added after gsi2list, in the next table update.
     */
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'sk', projection: 'ALL' },
  ],
} as const;

/** Default table name for the local sandbox and the admin CLI; Lambdas get TABLE_NAME from the stack. */
export const defaultLocalTableName = 'registrar';

/** The name the code uses: `TABLE_NAME`, else the local default. */
export function tableName(): string {
  return process.env.TABLE_NAME || defaultLocalTableName;
}

/**
 * CreateTable input for DynamoDB (Local or AWS) from the definition above, on-demand billing. The
 * stream is on unless `stream: false` (a test table that no stream consumer reads: DynamoDB Local
 * keeps the stream records of deleted tables, and its writes slow down as tables with a stream come
 * and go: test/support/table-stream.ts).
 */
export function createTableInput(name: string, { stream = true }: { stream?: boolean } = {}) {
  const attributes = new Set<string>([table.partitionKey, table.sortKey]);
  for (const gsi of table.globalSecondaryIndexes) {
    attributes.add(gsi.partitionKey);
    attributes.add(gsi.sortKey);
  }
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType } } : {}),
    AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: table.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((gsi) => ({
      IndexName: gsi.indexName,
      KeySchema: [
        { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: {
        ProjectionType: gsi.projection,
        ...('nonKeyAttributes' in gsi ? { NonKeyAttributes: [...gsi.nonKeyAttributes] } : {}),
      },
    })),
  };
}
