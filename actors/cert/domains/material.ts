// A domain's certificate material (acme/protocol.ts: Material) in canonical form.
import type { Material } from '../acme/protocol.js';

const blockPattern = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]*?-----END \1-----/g;
const keyLabels = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);

/**
 * The material in canonical form: each part only its PEM blocks, each block ending in one newline,
 * LF line ends, nothing between blocks. Throws when a part holds what it should not: no certificate,
 * two keys, a key among the certificates, no key, or a key for a domain whose key stays on its host
 * (`ownKey`).
 */
export function normalizeMaterial(material: Material, ownKey = false): Material {
  const only = (text: string, part: string, accept: (label: string) => boolean, count: (n: number) => boolean): string => {
    const blocks = [...text.matchAll(blockPattern)];
    if (!count(blocks.length) || !blocks.every((block) => accept(block[1] ?? ''))) throw new Error(`${part} does not hold what it should`);
    return blocks.map((block) => `${block[0].replace(/\r\n/g, '\n')}\n`).join('');
  };
  return {
    cert_pem: only(
      material.cert_pem,
      'cert_pem (one CERTIFICATE block)',
      (label) => label === 'CERTIFICATE',
      (n) => n === 1,
    ),
    chain_pem: only(
      material.chain_pem,
      'chain_pem (CERTIFICATE blocks only)',
      (label) => label === 'CERTIFICATE',
      () => true,
    ),
    key_pem: only(
      material.key_pem,
      ownKey ? 'key_pem (no private key: the key of an own_key domain stays on its host)' : 'key_pem (one private key block)',
      (label) => keyLabels.has(label),
      (n) => n === (ownKey ? 0 : 1),
    ),
  };
}
