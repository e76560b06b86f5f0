// `certhub renew|rekey|revoke DOMAIN`: the panel's Renew now, Re-key and Revoke from a shell, sent to
// the running certhub's admin API (admin-client.ts), which does them and records them in the audit
// log as it does the panel's. Each prints what certhub answered; the new certificate follows as the
// panel shows it.
import type { RevocationReason } from '../acme/revocation-reasons.js';
import { certConfigPath } from '../config-load.js';
import type { DomainView } from '../domains/protocol.js';
import { adminRequest, adminTarget, refusalOf } from './admin-client.js';

export type LifecycleAction = { action: 'renew' } | { action: 'rekey' } | { action: 'revoke'; reason: RevocationReason };

export interface LifecycleOptions {
  dataDir: string;
  url?: string;
  domain: string;
  /** Where the result goes; process.stdout by default. */
  write?: NodeJS.WritableStream;
}

export async function runLifecycleAction(options: LifecycleOptions, what: LifecycleAction): Promise<void> {
  const out = options.write ?? process.stdout;
  const target = await adminTarget(options.dataDir, options.url);
  const path = `api/admin/domains/${encodeURIComponent(options.domain)}/${what.action}`;
  const answer = await adminRequest(target, 'POST', path, what.action === 'revoke' ? { reason: what.reason } : undefined);
  if (answer.status === 401) throw new Error(`certhub at ${target.url.origin} refused the admin key of ${certConfigPath(options.dataDir)} (HTTP 401)`);
  if (answer.status !== 200) throw new Error(`certhub at ${target.url.origin} refused to ${what.action} ${options.domain}: ${refusalOf(answer)}`);
  if (what.action === 'revoke') {
    const { domain, ca_answer } = JSON.parse(answer.body) as { domain: DomainView; ca_answer: string };
    out.write(`${domain.name}: ${ca_answer}; a new certificate with a new key is being ordered (status: ${domain.status})\n`);
    return;
  }
  const domain = JSON.parse(answer.body) as DomainView;
  const started = what.action === 'renew' ? 'renewal started' : 'renewal with a new key started';
  out.write(`${domain.name}: ${started} (status: ${domain.status})\n`);
}
