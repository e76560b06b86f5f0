// What renewal needs to know about a certificate, read from its DER: validity, the serial's exact
// content octets and the authority key identifier. Node's X509Certificate drops the serial's leading
// 0x00 sign byte (and @peculiar/x509's serialNumber does too), which ARI's CertID must keep, so the
// certificate is parsed with @peculiar/asn1-x509, which keeps the octets as encoded.
import { X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AuthorityKeyIdentifier, Certificate, id_ce_authorityKeyIdentifier } from '@peculiar/asn1-x509';

export interface CertificateFacts {
  /** Epoch milliseconds. */
  notBefore: number;
  notAfter: number;
  /** The serial's DER content octets, a leading 0x00 kept. */
  serial: Uint8Array;
  /** The keyIdentifier of the authority key identifier extension, when there is one. */
  authorityKeyId: Uint8Array | undefined;
}

/** Reads the first certificate of a PEM text (or DER bytes); throws when it is not a certificate. */
export function readCertificateFacts(certificate: string | Uint8Array): CertificateFacts {
  const der = typeof certificate === 'string' ? new X509Certificate(certificate).raw : certificate;
  const parsed = AsnConvert.parse(der, Certificate);
  const tbs = parsed.tbsCertificate;
  const akiExtension = tbs.extensions?.find((extension) => extension.extnID === id_ce_authorityKeyIdentifier);
  const aki = akiExtension === undefined ? undefined : AsnConvert.parse(akiExtension.extnValue, AuthorityKeyIdentifier);
  return {
    notBefore: tbs.validity.notBefore.getTime().getTime(),
    notAfter: tbs.validity.notAfter.getTime().getTime(),
    serial: new Uint8Array(tbs.serialNumber),
    authorityKeyId: aki?.keyIdentifier === undefined ? undefined : new Uint8Array(aki.keyIdentifier.buffer),
  };
}
