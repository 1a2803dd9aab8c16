/**
 * The layer rules of ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser). Paths are
 * resolved, so a rule holds whatever the import's spelling. The foundation modules every layer may
 * use: shared/schemas/, shared/errors.ts, shared/time.ts, shared/logger.ts, shared/routes.ts, shared/integrations.ts,
 * shared/settings.ts.
 */
const foundation = '^shared/(schemas/|errors\\.ts$|time\\.ts$|logger\\.ts$|routes\\.ts$|integrations\\.ts$|settings\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles, of files (and so of folders).',
      severity: 'error',
      from: { path: '^(shared|functions|infra|bench)/' },
      to: { circular: true },
    },
    {
      name: 'shared-never-imports-functions',
      comment: 'shared/ is below the adapters: nothing in it imports functions/.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^functions/' },
    },
    {
      name: 'domain-never-imports-http',
      comment: 'Use cases speak the domain: only shared/http/ (and the adapters) know HTTP.',
      severity: 'error',
      from: { path: '^shared/', pathNot: '^shared/http/' },
      to: { path: '^shared/http/' },
    },
    {
      name: 'data-layer-imports-no-domain',
      comment: 'shared/db/ imports only itself, the model and the foundation.',
      severity: 'error',
      from: { path: '^shared/db/' },
      to: { path: '^shared/', pathNot: [`^shared/(db|model)/`, foundation] },
    },
    {
      name: 'model-imports-only-foundation',
      comment: 'shared/model/ (entity schemas and vocabularies) sits below the data layer.',
      severity: 'error',
      from: { path: '^shared/model/' },
      to: { path: '^shared/', pathNot: ['^shared/model/', foundation] },
    },
    {
      name: 'foundation-imports-nothing-above',
      comment: 'The foundation modules import only each other.',
      severity: 'error',
      from: { path: foundation },
      to: { path: '^shared/', pathNot: foundation },
    },
    {
      name: 'features-reach-the-table-through-repositories',
      comment: 'Above shared/db/, the table is reached only through repository methods named for what they do.',
      severity: 'error',
      from: { path: '^(shared|functions)/', pathNot: '^shared/db/' },
      to: { path: '^shared/db/', pathNot: '^shared/db/repositories/' },
    },
    {
      name: 'table-access-only-in-data-layer',
      comment: 'The DynamoDB client and commands are used only in shared/db/ (and the infra tooling).',
      severity: 'error',
      from: { path: '^(shared|functions)/', pathNot: '^shared/db/' },
      to: { path: '(^|node_modules/)@aws-sdk/(client-dynamodb|lib-dynamodb)(/|$)' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser; swc parses the sources instead.
    parser: 'swc',
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^cdk\\.out/' },
  },
};
