import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * A certificate chain made on the spot for tests that need a certificate file: a root, an
 * intermediate it signs, and a leaf the intermediate signs for the given names (ECDSA P-256).
 */
export interface TestChain {
  root: string;
  intermediate: string;
  leaf: string;
}

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

async function keys() {
  return webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

export async function testChain(names: string[]): Promise<TestChain> {
  const [rootKeys, interKeys, leafKeys] = await Promise.all([keys(), keys(), keys()]);
  const day = 86_400_000;
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + 90 * day);
  const ca = [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)];
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Test Root',
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm: alg,
    extensions: ca,
  });
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Test Intermediate',
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: interKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: alg,
    extensions: ca,
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '03',
    subject: `CN=${names[0]}`,
    issuer: intermediate.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: interKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value })))],
  });
  return { root: root.toString('pem'), intermediate: intermediate.toString('pem'), leaf: leaf.toString('pem') };
}
