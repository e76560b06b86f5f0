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
  if (options.authorityKeyIdHex !== null) extensions.push(new x509.AuthorityKeyIdentifierExtension(options.authorityKeyIdHex ?? '0102030405060708090a0b0c0d0e0f1011121314'));
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
