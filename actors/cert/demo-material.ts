// A self-signed certificate and key for one name, as `--demo` issues them, for another role's demo
// (the demo proxy's route). The X.509 libraries are loaded on first use: they cost every process a
// quarter of a second at start.
export interface DemoMaterial {
  certPem: string;
  keyPem: string;
  /** Epoch milliseconds: the certificate's notAfter. */
  expiresAt: number;
}

export async function demoMaterial(name: string): Promise<DemoMaterial> {
  const { createDemoCertificate } = await import('./domains/demo-certificate.js');
  const made = await createDemoCertificate(name, { now: Date.now() });
  return { certPem: made.cert_pem, keyPem: made.key_pem, expiresAt: made.notAfter };
}
