// Real X.509 certificates for tests, made with @peculiar/x509 over WebCrypto: a leaf signed by a
// throwaway CA, with the serial, validity and authority key identifier a test asks for. (@peculiar/x509
// finds Node's global WebCrypto by itself.)
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface TestCertificateOptions {
  /** Hexadecimal; @peculiar/x509 adds the 0x00 sign byte when the top bit is set, as DER requires. */
  serialHex?: string;
  notBefore: Date;
  notAfter: Date;
  name?: string;
  /** Hexadecimal keyIdentifier of the authority key identifier; none when null. */
  authorityKeyIdHex?: string | null;
}

export interface TestCertificate {
  certPem: string;
  keyPem: string;
}

export async function testCertificate(options: TestCertificateOptions): Promise<TestCertificate> {
  const [ca, leaf] = await Promise.all([generateKeys(), generateKeys()]);
  const name = options.name ?? 'app.example.com';
  const extensions: x509.Extension[] = [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }])];
  if (options.authorityKeyIdHex !== null)
    extensions.push(new x509.AuthorityKeyIdentifierExtension(options.authorityKeyIdHex ?? '0102030405060708090a0b0c0d0e0f1011121314'));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: options.serialHex ?? '01',
    subject: `CN=${name}`,
    issuer: 'CN=certhub test CA',
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    signingAlgorithm: algorithm,
    publicKey: leaf.publicKey,
    signingKey: ca.privateKey,
    extensions,
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', leaf.privateKey);
  return { certPem: `${certificate.toString('pem')}\n`, keyPem: `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n` };
}

function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
}

export interface TestChain extends TestCertificate {
  /** The CA that issued the leaf (also its chain). */
  caPem: string;
}

/** A CA and a leaf for `name` (and `ips`) that it issued: a chain as a CA hands it out, or a TLS server's certificate under a private CA. */
export async function testChain(name: string, options: { notBefore: Date; notAfter: Date; ips?: string[] }): Promise<TestChain> {
  const [caKeys, leafKeys] = await Promise.all([generateKeys(), generateKeys()]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '0a',
    name: 'CN=certhub test CA',
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    signingAlgorithm: algorithm,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '0b',
    subject: `CN=${name}`,
    issuer: ca.subject,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    signingAlgorithm: algorithm,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }, ...(options.ips ?? []).map((ip) => ({ type: 'ip' as const, value: ip }))]),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return { certPem: `${leaf.toString('pem')}\n`, keyPem: `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n`, caPem: `${ca.toString('pem')}\n` };
}
