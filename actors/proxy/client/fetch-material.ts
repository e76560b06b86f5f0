// One domain's material as a fetch (once, or in a watch) gets it: with certhub's key, or, with
// --own-key, with the host's own key paired to the certificate certhub ordered for its CSR (own-key.ts).
import type { CertificateMaterial } from './certificate-answer.js';
import { fetchCertificate, type CertificateRequest } from './fetch-certificate.js';
import type { OwnKeySettings } from './own-key.js';

export interface FetchedMaterial {
  material: CertificateMaterial;
  /** Run once the material is written (the next key of own-key.ts becomes the only one). */
  written: () => Promise<void>;
}

export async function fetchMaterial(request: CertificateRequest, options: { dir: string; ownKey?: OwnKeySettings }): Promise<FetchedMaterial> {
  if (options.ownKey === undefined) return { material: await fetchCertificate(request), written: () => Promise.resolve() };
  // Loaded only by a host that keeps its key: the X.509 library takes half a second to load.
  const { fetchWithOwnKey } = await import('./own-key.js');
  return fetchWithOwnKey(request, options.dir, options.ownKey);
}
