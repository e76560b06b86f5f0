// A domain's material as one PKCS#12 file (.p12, .pfx: Java keystores, Windows, IIS, appliances),
// built with pkijs. It holds the leaf with its key and the chain, laid out as `openssl pkcs12 -export`
// lays them: the certificates in one encrypted safe, the key in a shrouded bag, both tagged with the
// domain (friendlyName, the alias Java shows) and the SHA-1 of the leaf (localKeyId).
//
// The modern form is OpenSSL 3's default: PBES2 with PBKDF2-HMAC-SHA-256 and AES-256-CBC, a SHA-256
// MAC, 2048 iterations. The legacy form is PKCS#12's own 3DES encryption and a SHA-1 MAC
// (pkcs12-engine.ts), for readers that know nothing newer.
//
// Each write draws new salts and IVs, so two files of the same material differ: whether the file on
// disk is current is decided by opening it (pkcs12Holds), not by comparing bytes.
import { createHash, createPrivateKey } from 'node:crypto';
import * as asn1js from 'asn1js';
import {
  Attribute,
  AuthenticatedSafe,
  CertBag,
  Certificate,
  ContentInfo,
  EncryptedContentInfo,
  EncryptedData,
  PBES2Params,
  PBKDF2Params,
  PFX,
  PKCS8ShroudedKeyBag,
  PrivateKeyInfo,
  SafeBag,
  SafeContents,
  type AlgorithmIdentifier,
} from 'pkijs';
import { Pkcs12Engine, pbeSha1TripleDes } from './pkcs12-engine.js';

export interface Pkcs12Settings {
  /** The password that encrypts the file and keys its MAC. */
  password: string;
  /** PKCS#12's own 3DES and a SHA-1 MAC, for old Java and Windows; else AES-256-CBC and SHA-256. */
  legacy: boolean;
}

/** What goes in the file: the material as written to the PEM files. */
export interface Pkcs12Material {
  domain: string;
  certPem: string;
  chainPem: string;
  keyPem: string;
}

/** OpenSSL 3's default for both the encryption and the MAC (PKCS12_DEFAULT_ITER). */
export const pkcs12Iterations = 2048;

const oid = {
  pbes2: '1.2.840.113549.1.5.13',
  aes256Cbc: '2.16.840.1.101.3.4.1.42',
  hmacSha256: '1.2.840.113549.2.9',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  keyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
} as const;

/** The PKCS#12 file (DER) of `material`, encrypted with `settings.password`. */
export async function pkcs12Of(material: Pkcs12Material, settings: Pkcs12Settings): Promise<Buffer> {
  const engine = new Pkcs12Engine(settings.legacy);
  const password = passwordBytes(settings.password);
  const certificates = certificateDers(material).map((der) => Certificate.fromBER(der));
  const leafDer = certificateDers(material)[0] ?? Buffer.alloc(0);
  const tags = [
    new Attribute({ type: oid.friendlyName, values: [new asn1js.BmpString({ value: material.domain })] }),
    new Attribute({ type: oid.localKeyId, values: [new asn1js.OctetString({ valueHex: createHash('sha1').update(leafDer).digest() })] }),
  ];
  const keyBag = new PKCS8ShroudedKeyBag({ parsedValue: PrivateKeyInfo.fromBER(keyDer(material.keyPem)) });
  const encryption = {
    password,
    contentEncryptionAlgorithm: { name: 'AES-CBC', length: 256 },
    hmacHashAlgorithm: 'SHA-256',
    iterationCount: pkcs12Iterations,
  };
  await keyBag.makeInternalValues(encryption, engine);
  const pfx = new PFX({
    parsedValue: {
      integrityMode: 0,
      authenticatedSafe: new AuthenticatedSafe({
        parsedValue: {
          safeContents: [
            {
              privacyMode: 1,
              value: new SafeContents({
                safeBags: certificates.map(
                  (certificate, index) =>
                    new SafeBag({ bagId: oid.certBag, bagValue: new CertBag({ parsedValue: certificate }), ...(index === 0 ? { bagAttributes: tags } : {}) }),
                ),
              }),
            },
            { privacyMode: 0, value: new SafeContents({ safeBags: [new SafeBag({ bagId: oid.keyBag, bagValue: keyBag, bagAttributes: tags })] }) },
          ],
        },
      }),
    },
  });
  await pfx.parsedValue?.authenticatedSafe?.makeInternalValues({ safeContents: [encryption, {}] }, engine);
  await pfx.makeInternalValues(
    { password, iterations: pkcs12Iterations, pbkdf2HashAlgorithm: 'SHA-256', hmacHashAlgorithm: settings.legacy ? 'SHA-1' : 'SHA-256' },
    engine,
  );
  return Buffer.from(pfx.toSchema().toBER(false));
}

/**
 * Whether `file` is already the PKCS#12 of `material` under `settings`: its MAC checks with the
 * password, every part is encrypted in the form asked, and it holds the same certificates, in order,
 * the same key and the domain's name. Anything else (another password, the other form, a renewal, a
 * damaged file) is false, and the file is written again.
 */
export async function pkcs12Holds(file: Uint8Array, material: Pkcs12Material, settings: Pkcs12Settings): Promise<boolean> {
  try {
    const engine = new Pkcs12Engine(settings.legacy);
    const password = passwordBytes(settings.password);
    const pfx = PFX.fromBER(new Uint8Array(file));
    await pfx.parseInternalValues({ password, checkIntegrity: true }, engine);
    if (pfx.macData?.mac.digestAlgorithm.algorithmId !== (settings.legacy ? oid.sha1 : oid.sha256)) return false;
    const safe = pfx.parsedValue?.authenticatedSafe;
    if (safe === undefined) return false;
    const encryptedSafes = safe.safeContents.filter((content) => content.contentType === ContentInfo.ENCRYPTED_DATA);
    if (!encryptedSafes.every((content) => encryptedAsAsked(content.content as asn1js.BaseBlock, settings))) return false;
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password })) }, engine);
    const certificates: Buffer[] = [];
    const keys: Buffer[] = [];
    const names: string[] = [];
    // pkijs leaves the parsed safes untyped; parseInternalValues above makes them this.
    const parsed = safe.parsedValue as { safeContents: { privacyMode: number; value: SafeContents }[] } | undefined;
    for (const content of parsed?.safeContents ?? []) {
      for (const bag of content.value.safeBags) {
        if (bag.bagValue instanceof CertBag) certificates.push(Buffer.from((bag.bagValue.certValue as asn1js.OctetString).valueBlock.valueHexView));
        else if (bag.bagValue instanceof PKCS8ShroudedKeyBag) {
          if (!algorithmAsAsked(bag.bagValue.encryptionAlgorithm, settings)) return false;
          const { encryptionAlgorithm, encryptedData } = bag.bagValue;
          const encrypted = new EncryptedData({
            encryptedContentInfo: new EncryptedContentInfo({ contentEncryptionAlgorithm: encryptionAlgorithm, encryptedContent: encryptedData }),
          });
          keys.push(Buffer.from(await encrypted.decrypt({ password }, engine)));
        } else return false;
        for (const attribute of bag.bagAttributes ?? [])
          if (attribute.type === oid.friendlyName) names.push(...(attribute.values as asn1js.BmpString[]).map((value) => value.valueBlock.value));
      }
    }
    const wanted = certificateDers(material);
    return (
      certificates.length === wanted.length &&
      certificates.every((der, index) => wanted[index]?.equals(der) === true) &&
      keys.length === 1 &&
      keys[0]?.equals(keyDer(material.keyPem)) === true &&
      names.length > 0 &&
      names.every((name) => name === material.domain)
    );
  } catch {
    return false;
  }
}

/** The DER of each certificate of the material, the leaf first. */
function certificateDers(material: Pkcs12Material): Buffer[] {
  const blocks = `${material.certPem}${material.chainPem}`.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64'));
}

/** The key as a PKCS#8 PrivateKeyInfo (DER), whichever PEM form certhub sent. */
function keyDer(keyPem: string): Buffer {
  return createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
}

function passwordBytes(password: string): ArrayBuffer {
  const bytes = new TextEncoder().encode(password);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/** An encrypted safe (a ContentInfo's content) whose algorithm is the one `settings` asks for. */
function encryptedAsAsked(content: asn1js.BaseBlock, settings: Pkcs12Settings): boolean {
  // A copy: pkijs marks up the ASN.1 objects it reads, and reads this one again to decrypt it.
  return algorithmAsAsked(EncryptedData.fromBER(content.toBER(false)).encryptedContentInfo.contentEncryptionAlgorithm, settings);
}

/** PKCS#12's 3DES for the legacy form; PBES2 with PBKDF2-HMAC-SHA-256 and AES-256-CBC for the modern one. */
function algorithmAsAsked(algorithm: AlgorithmIdentifier, settings: Pkcs12Settings): boolean {
  if (settings.legacy) return algorithm.algorithmId === pbeSha1TripleDes;
  if (algorithm.algorithmId !== oid.pbes2) return false;
  const pbes2 = new PBES2Params({ schema: algorithm.algorithmParams });
  const pbkdf2 = new PBKDF2Params({ schema: pbes2.keyDerivationFunc.algorithmParams });
  return pbes2.encryptionScheme.algorithmId === oid.aes256Cbc && pbkdf2.prf?.algorithmId === oid.hmacSha256;
}
