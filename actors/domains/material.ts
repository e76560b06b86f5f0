// A domain's certificate material: its certificate, the chain up to (not including) the root, and
// the private key. On disk the three are one PEM file (certificate, chain, key: the order HAProxy
// reads), written in one atomic step: three files could not be replaced together, and a crash
// between them would pair a new certificate with an old key.

export interface Material {
  /** One CERTIFICATE block. */
  cert_pem: string;
  /** Zero or more CERTIFICATE blocks (empty for a self-signed demo certificate). */
  chain_pem: string;
  /** One PRIVATE KEY block (PKCS#8, or the SEC1/PKCS#1 forms). */
  key_pem: string;
}

const blockPattern = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]*?-----END \1-----/g;
const keyLabels = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);

interface PemBlock {
  label: string;
  text: string;
}

function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(blockPattern)].map((match) => ({ label: match[1] ?? '', text: `${match[0].replace(/\r\n/g, '\n')}\n` }));
}

/** Splits a bundle into material; throws when it is not exactly one certificate, a chain and one key. */
export function parseMaterial(text: string): Material {
  const blocks = pemBlocks(text);
  const certificates = blocks.filter((block) => block.label === 'CERTIFICATE');
  const keys = blocks.filter((block) => keyLabels.has(block.label));
  const others = blocks.filter((block) => block.label !== 'CERTIFICATE' && !keyLabels.has(block.label));
  if (certificates.length === 0) throw new Error('holds no certificate');
  if (keys.length !== 1) throw new Error(`holds ${keys.length} private keys, not one`);
  if (others.length > 0) throw new Error(`holds a block the material has no place for (${others[0]?.label ?? ''})`);
  return {
    cert_pem: certificates[0]?.text ?? '',
    chain_pem: certificates
      .slice(1)
      .map((block) => block.text)
      .join(''),
    key_pem: keys[0]?.text ?? '',
  };
}

/**
 * The material in its canonical form (each block ending in one newline, nothing between blocks), as
 * parseMaterial returns it. Throws when a part holds what it should not: a key among the certificates.
 */
export function normalizeMaterial(material: Material): Material {
  const only = (text: string, part: string, accept: (label: string) => boolean, count: (n: number) => boolean): string => {
    const blocks = pemBlocks(text);
    if (!count(blocks.length) || !blocks.every((block) => accept(block.label))) throw new Error(`${part} does not hold what it should`);
    return blocks.map((block) => block.text).join('');
  };
  return {
    cert_pem: only(material.cert_pem, 'cert_pem (one CERTIFICATE block)', (label) => label === 'CERTIFICATE', (n) => n === 1),
    chain_pem: only(material.chain_pem, 'chain_pem (CERTIFICATE blocks only)', (label) => label === 'CERTIFICATE', () => true),
    key_pem: only(material.key_pem, 'key_pem (one PRIVATE KEY block)', (label) => keyLabels.has(label), (n) => n === 1),
  };
}

/** The bundle file's content. */
export function formatMaterial(material: Material): string {
  return `${material.cert_pem}${material.chain_pem}${material.key_pem}`;
}
