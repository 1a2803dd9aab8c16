import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { invokeBundle, projectRoot } from '../bench/bundles.ts';
import { type BundledImplementations, esbuildOptions } from '../infra/bundling.ts';
import { callsOf } from '../infra/function.ts';
import { jobs, routes } from '../shared/routes.ts';
import { apiEvent } from './support/api.ts';

/**
 * The Lambda bundles swap the SDK's credential chain for the environment-variable provider and
 * leave out its event-stream support (infra/bundling.ts). Built exactly as deployed, a bundle must
 * hold none of the replaced code, and must still sign its requests with environment credentials.
 */
/** What a sandbox stage runs: no integration but the sandboxes. */
const sandboxStage: BundledImplementations = { authority: 'sandbox', dns: 'sandbox', registry: 'sandbox' };

describe('Lambda bundles (as deployed)', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'registrar-bundle-test-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  /** A function bundled for a sandbox stage but for `stage`: the source files it carries, and its size. */
  const bundleFor = async (fn: string, label: string, stage: Partial<BundledImplementations>) => {
    const result = await build({
      ...esbuildOptions(join('functions', fn, 'handler.ts'), join(outDir, `${fn}-${label}`, 'index.mjs'), projectRoot, {
        ...sandboxStage,
        ...stage,
      }),
      metafile: true,
    });
    const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
    const bundled = Object.entries(output?.inputs ?? {})
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([f]) => f);
    return { bundled, bytes: output?.bytes ?? 0 };
  };
  const file = join(outDir, 'provider-info', 'index.mjs');

  it('leave out the credential chain and event streams, and keep the environment provider', async () => {
    const result = await build({
      ...esbuildOptions(join('functions', 'provider-info', 'handler.ts'), file, projectRoot, sandboxStage),
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((f) =>
        /credential-provider-(node|ini|sso|process|web-identity|http|login)|nested-clients|token-providers|event-streams\//.test(f),
      ),
    ).toEqual([]);
    expect(inputs.some((f) => f.includes('credential-provider-env'))).toBe(true);
  });

  it('leave out modules a function imports but never uses: the API description carries no DynamoDB client', async () => {
    // The project's modules are free of import side effects ("sideEffects": false in package.json),
    // so the openapi function, which imports schemas that live beside repository code, bundles none of it.
    const result = await build({
      ...esbuildOptions(join('functions', 'openapi', 'handler.ts'), join(outDir, 'openapi', 'index.mjs'), projectRoot, sandboxStage),
      metafile: true,
    });
    const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
    const inputs = Object.entries(output?.inputs ?? {})
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([f]) => f);
    expect(inputs.some((f) => f.includes('functions/openapi/document.ts'))).toBe(true);
    expect(inputs.filter((f) => /@aws-sdk\/client-dynamodb|@smithy\/core/.test(f))).toEqual([]);
  });

  it('read JSON bodies through @middy/http-json-body-parser in the functions that take one, and import node:http in none', async () => {
    // The parser's @middy/util imports node:http (for its status texts). An ESM import of node:http
    // makes Node load undici at start (the builtin's lazy WebSocket getters), so the bundles read it
    // through shared/aws/lambda-node-http.ts (process.getBuiltinModule); the bench measures the
    // cost (docs/performance.md). Only @middy/util imports it at start, and only in the functions
    // with a body; the SDK's HTTP handler loads it lazily, for an http: endpoint.
    for (const route of ['transfer', 'renew', 'process-resend', 'zone']) {
      const result = await build({
        ...esbuildOptions(join('functions', route, 'handler.ts'), join(outDir, route, 'index.mjs'), projectRoot, sandboxStage),
        metafile: true,
      });
      const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
      const bundled = Object.entries(output?.inputs ?? {})
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([f]) => f);
      const parser = bundled.some((f) => f.includes('node_modules/@middy/http-json-body-parser/'));
      expect(parser, route).toBe(route !== 'zone');
      expect(
        (output?.imports ?? []).filter((i) => /^(node:)?http$/.test(i.path)),
        route,
      ).toEqual([]);
      const standInImporters = Object.entries(result.metafile.inputs)
        .filter(([, input]) => input.imports.some((i) => i.path === 'shared/aws/lambda-node-http.ts' && i.kind === 'import-statement'))
        .map(([f]) => f)
        .filter((f) => bundled.includes(f));
      expect(
        standInImporters.filter((f) => !f.includes('node_modules/@middy/util/')),
        route,
      ).toEqual([]);
      expect(standInImporters.length > 0, route).toBe(route !== 'zone');
      expect(
        output?.imports.some((i) => i.path === 'node:https'),
        route,
      ).toBe(true);
    }
  });

  it('carry the ACME client only in the function that works with the CA, the DCV job, and only for a stage on ACME', async () => {
    const acmeIn = async (fn: string, authority: 'sandbox' | 'acme') => {
      // As the stack bundles it: a function that only names the authority (namesOnly) does not work with the CA.
      const declaration = [...routes, ...jobs].find((d) => d.dir === fn);
      const worksWithAuthority = declaration !== undefined && callsOf(declaration).includes('authority');
      const { bundled, bytes } = await bundleFor(fn, authority, { authority, worksWithAuthority });
      return { acme: bundled.some((f) => /node_modules\/(acme-client|axios|follow-redirects|form-data)\//.test(f)), bytes };
    };
    for (const fn of ['dcv-check', 'renew', 'process-cancel', 'process-resend']) {
      const onAcme = await acmeIn(fn, 'acme');
      expect(onAcme.acme, fn).toBe(fn === 'dcv-check');
      expect(onAcme.bytes, fn).toBeLessThan(fn === 'dcv-check' ? 2_000_000 : 500_000);
      // On a stage whose authority is not ACME, not even the DCV job carries it.
      const onSandbox = await acmeIn(fn, 'sandbox');
      expect(onSandbox.acme, fn).toBe(false);
      // On a sandbox stage, with the sandbox CA's signing where the sandbox authority issues (renew,
      // the DCV job: asn1js and node:crypto, docs/certificates.md, "The sandbox CA"). Each was
      // 550-660 KB while the signing was @peculiar/x509 loaded with import(), and 330-420 KB since.
      expect(onSandbox.bytes, fn).toBeLessThan(500_000);
    }
  });

  it("carry the sandbox CA's signing where the sandbox authority issues (renew, the DCV job), and none on a stage on ACME", async () => {
    const signingIn = async (fn: string, authority: 'sandbox' | 'acme') => {
      const declaration = [...routes, ...jobs].find((d) => d.dir === fn);
      const worksWithAuthority = declaration !== undefined && callsOf(declaration).includes('authority');
      const { bundled } = await bundleFor(fn, `signing-${authority}`, { authority, worksWithAuthority });
      return {
        signing: bundled.some((f) => f.endsWith('shared/certificates/sandbox-ca.ts')),
        // An adapter's issuing, the sandbox's or ACME's (their desks alone are authority-*-desk.ts).
        issuing: bundled.some((f) => /shared\/certificates\/authority-(sandbox|acme)\.ts$/.test(f)),
        // An ASN.1 schema library (with its decorators, tsyringe and reflect-metadata): none signs or reads here.
        schemas: bundled.some((f) => /node_modules\/(@peculiar\/|tsyringe\/|reflect-metadata\/)/.test(f)),
        // The SDK's aggregated client and waiters: kept whole only when a module is loaded with
        // import() beside table code, which makes esbuild wrap every module it reaches (the SDK's too).
        wholeSdk: bundled.some((f) => f.endsWith('@aws-sdk/client-dynamodb/dist-es/DynamoDB.js')),
      };
    };
    for (const fn of ['dcv-check', 'renew']) {
      expect(await signingIn(fn, 'sandbox'), fn).toEqual({ signing: true, issuing: true, schemas: false, wholeSdk: false });
    }
    // Cancel and resend (and a DCV change, through resend's route) never issue: they take the
    // authority's desk only (`authorityDesk`, shared/certificates/authorities.ts).
    for (const fn of ['process-cancel', 'process-resend']) {
      expect(await signingIn(fn, 'sandbox'), fn).toEqual({ signing: false, issuing: false, schemas: false, wholeSdk: false });
    }
    for (const fn of ['dcv-check', 'renew', 'process-cancel']) expect((await signingIn(fn, 'acme')).signing, fn).toBe(false);
    expect((await signingIn('process-resend', 'acme')).issuing).toBe(false);
    // Downloading and reading a certificate never signs: the file is made when it is issued (or loaded).
    for (const fn of ['certificate-download', 'certificate']) expect((await signingIn(fn, 'sandbox')).signing, fn).toBe(false);
  });

  it('carry the DNS adapter the stage runs (the sandbox provider included), and none of another', async () => {
    const clients = async (fn: string, dns: BundledImplementations['dns']) => {
      const { bundled } = await bundleFor(fn, dns, { dns });
      return {
        route53: bundled.some((f) => f.includes('node_modules/@aws-sdk/client-route-53/')),
        powerdns: bundled.some((f) => f.endsWith('shared/dns/powerdns.ts')),
        sandbox: bundled.some((f) => f.endsWith('shared/dns/sandbox.ts')),
      };
    };
    for (const fn of ['zone-sync', 'zone-reconcile']) {
      expect(await clients(fn, 'sandbox'), fn).toEqual({ route53: false, powerdns: false, sandbox: true });
      expect(await clients(fn, 'route53'), fn).toEqual({ route53: true, powerdns: false, sandbox: false });
      expect(await clients(fn, 'powerdns'), fn).toEqual({ route53: false, powerdns: true, sandbox: false });
    }
  });

  it('carry the registry gateway the stage runs, and not the other', async () => {
    // Each gateway is one object with every method of the registry port (transfers, domains,
    // contacts), so a function that uses it carries all of them: the stage's gateway only, then.
    const gateways = async (fn: string, registry: 'sandbox' | 'rtr') => {
      const { bundled, bytes } = await bundleFor(fn, `registry-${registry}`, { registry });
      return {
        rtr: bundled.some((f) => f.endsWith('shared/registry/rtr.ts')),
        sandbox: bundled.some((f) => f.endsWith('shared/registry/sandbox.ts')),
        secretsManager: bundled.some((f) => f.includes('node_modules/@aws-sdk/client-secrets-manager/')),
        bytes,
      };
    };
    const onSandbox = await gateways('process-cancel', 'sandbox');
    expect(onSandbox).toMatchObject({ rtr: false, sandbox: true, secretsManager: false });
    // 356 KB with both gateways, 309 KB with the sandbox's.
    expect(onSandbox.bytes).toBeLessThan(340_000);
    expect(await gateways('process-cancel', 'rtr')).toMatchObject({ rtr: true, sandbox: false, secretsManager: true });
  });

  it('sign requests with environment credentials only and answer from DynamoDB (in a fresh process)', async () => {
    const event = apiEvent({
      method: 'GET',
      path: '/v2/providers/REGISTRY/sidn/info',
      resource: '/v2/providers/REGISTRY/{name}/info',
      pathParameters: { name: 'sidn' },
    });
    const result = (await invokeBundle(file, event, {
      endpoint: process.env.DYNAMODB_ENDPOINT as string,
      table: process.env.TABLE_NAME as string,
    })) as {
      statusCode: number;
      body: string;
    };
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'sidn', metadata: { possibleDomainExtensions: ['nl'] } });
  });
});
