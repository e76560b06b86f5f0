// pkijs's crypto engine, with the password-based encryption of PKCS#12 itself (RFC 7292 appendix B and
// C: pbeWithSHAAnd3-KeyTripleDES-CBC) beside the PBES2 that pkijs writes. Old readers (Java before
// 8u301, Windows before Server 2019) know only that one. RC2-40, the other cipher OpenSSL's -legacy
// uses, is a 40-bit cipher outside OpenSSL 3's default provider, so Node cannot run it; 3DES for the
// certificates too is what Windows' own TripleDES-SHA1 export writes, and every reader of RC2 reads it.
import { createCipheriv, createDecipheriv, createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import { AlgorithmIdentifier, CryptoEngine, EncryptedContentInfo, type CryptoEngineDecryptParams, type CryptoEngineEncryptParams } from 'pkijs';

/** pbeWithSHAAnd3-KeyTripleDES-CBC (RFC 7292 appendix C). */
export const pbeSha1TripleDes = '1.2.840.113549.1.12.1.3';

/** OpenSSL's salt length for PKCS#12 PBE (PKCS5_SALT_LEN). */
const saltBytes = 8;

/** Encrypts with PBES2 as pkijs does, or with PKCS#12's 3DES when `legacy`; decrypts either. */
export class Pkcs12Engine extends CryptoEngine {
  constructor(private readonly legacy: boolean) {
    super({ name: 'node', crypto: webcrypto });
  }

  override async encryptEncryptedContentInfo(parameters: CryptoEngineEncryptParams): Promise<EncryptedContentInfo> {
    if (!this.legacy) return super.encryptEncryptedContentInfo(parameters);
    const salt = randomBytes(saltBytes);
    const cipher = tripleDes(parameters.password, salt, parameters.iterationCount, 'encrypt');
    const encrypted = Buffer.concat([cipher.update(new Uint8Array(parameters.contentToEncrypt)), cipher.final()]);
    return new EncryptedContentInfo({
      contentType: parameters.contentType,
      contentEncryptionAlgorithm: new AlgorithmIdentifier({
        algorithmId: pbeSha1TripleDes,
        algorithmParams: new asn1js.Sequence({
          value: [new asn1js.OctetString({ valueHex: salt }), new asn1js.Integer({ value: parameters.iterationCount })],
        }),
      }),
      encryptedContent: new asn1js.OctetString({ valueHex: encrypted }),
    });
  }

  override async decryptEncryptedContentInfo(parameters: CryptoEngineDecryptParams): Promise<ArrayBuffer> {
    const { contentEncryptionAlgorithm } = parameters.encryptedContentInfo;
    if (contentEncryptionAlgorithm.algorithmId !== pbeSha1TripleDes) return super.decryptEncryptedContentInfo(parameters);
    const params = contentEncryptionAlgorithm.algorithmParams as asn1js.Sequence;
    const [salt, iterations] = params.valueBlock.value as [asn1js.OctetString, asn1js.Integer];
    const decipher = tripleDes(parameters.password, Buffer.from(salt.valueBlock.valueHexView), iterations.valueBlock.valueDec, 'decrypt');
    const content = new Uint8Array(parameters.encryptedContentInfo.getEncryptedContent());
    const plain = Buffer.concat([decipher.update(content), decipher.final()]);
    return plain.buffer.slice(plain.byteOffset, plain.byteOffset + plain.byteLength);
  }
}

function tripleDes(password: ArrayBuffer, salt: Buffer, iterations: number, direction: 'encrypt' | 'decrypt') {
  const secret = bmpPassword(password);
  const key = pkcs12Kdf(secret, salt, 1, iterations, 24);
  const iv = pkcs12Kdf(secret, salt, 2, iterations, 8);
  return direction === 'encrypt' ? createCipheriv('des-ede3-cbc', key, iv) : createDecipheriv('des-ede3-cbc', key, iv);
}

/** The password as PKCS#12 hashes it: UTF-8 text as big-endian UTF-16 (a BMPString), then two zero bytes. */
function bmpPassword(password: ArrayBuffer): Buffer {
  const text = new TextDecoder().decode(password);
  const bmp = Buffer.alloc(text.length * 2 + 2);
  for (let index = 0; index < text.length; index++) bmp.writeUInt16BE(text.charCodeAt(index), index * 2);
  return bmp;
}

/**
 * RFC 7292 appendix B.2 with SHA-1: `size` bytes of key material for `id` (1 a key, 2 an IV, 3 a MAC
 * key). pkijs has it for the MAC alone, inside its engine.
 */
export function pkcs12Kdf(password: Buffer, salt: Buffer, id: 1 | 2 | 3, iterations: number, size: number): Buffer {
  const u = 20;
  const v = 64;
  const repeated = (bytes: Buffer) => Buffer.from(Uint8Array.from({ length: v * Math.ceil(bytes.length / v) }, (_, index) => bytes[index % bytes.length] ?? 0));
  const input = Buffer.concat([repeated(salt), repeated(password)]);
  const diversifier = Buffer.alloc(v, id);
  const out: Buffer[] = [];
  for (let produced = 0; produced < size; produced += u) {
    let block = createHash('sha1').update(diversifier).update(input).digest();
    for (let round = 1; round < iterations; round++) block = createHash('sha1').update(block).digest();
    out.push(block);
    const filler = repeated(block);
    // Each v-byte block of the input becomes (block + filler + 1) mod 2^(8v).
    for (let start = 0; start < input.length; start += v) {
      let carry = 1;
      for (let offset = v - 1; offset >= 0; offset--) {
        const sum = (input[start + offset] ?? 0) + (filler[offset] ?? 0) + carry;
        input[start + offset] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, size);
}
