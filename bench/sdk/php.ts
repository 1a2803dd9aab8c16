import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackages } from '../../infra/local/debian-packages.ts';
import { csrFor, emailDcv, type Fixtures } from './fixtures.ts';
import type { Outcome } from './outcome.ts';

/**
 * The official PHP SDK (`realtimeregister/realtimeregister-php`) run from a checkout by
 * bench/sdk/php/calls.php. PHP and the SDK's libraries are Debian packages fetched without root, as
 * `npm start` fetches PowerDNS (infra/local/debian-packages.ts); the SDK's composer.json names guzzle
 * 6 or 7, psr/log and webmozart/assert, which Debian packages with their dependencies.
 */
const phpPackages = [
  'php8.2-cli',
  'php8.2-common',
  'php8.2-readline',
  'php-guzzlehttp-guzzle',
  'php-guzzlehttp-psr7',
  'php-guzzlehttp-promises',
  'php-psr-http-message',
  'php-psr-http-client',
  'php-psr-http-factory',
  'php-psr-log',
  'php-webmozart-assert',
  'php-symfony-deprecation-contracts',
  'php-getallheaders',
];

const script = join(dirname(fileURLToPath(import.meta.url)), 'php/calls.php');

export async function runPhp(checkout: string, baseUrl: string, fx: Fixtures): Promise<Outcome[]> {
  const { root } = await ensureDebianPackages(phpPackages);
  const php = process.env.PHP ?? join(root, 'usr/bin/php8.2');
  const args = [
    '-n',
    '-d',
    `include_path=.:${join(root, 'usr/share/php')}`,
    '-d',
    `extension_dir=${join(root, 'usr/lib/php/20220829')}`,
    '-d',
    'extension=ctype',
    '-d',
    'memory_limit=256M',
    script,
    checkout,
    baseUrl,
    JSON.stringify({ ...fx, csr: csrFor(fx.certificateName), dcv: emailDcv(fx) }),
  ];
  const stdout = await new Promise<string>((done, fail) => {
    execFile(php, args, { maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
      if (error) fail(new Error(`php failed: ${error.message}\n${err}\n${out}`));
      else done(out);
    });
  });
  const last = stdout.trim().split('\n').at(-1) ?? '[]';
  return JSON.parse(last) as Outcome[];
}
