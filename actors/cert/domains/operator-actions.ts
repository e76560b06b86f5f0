// What the operator may do to an issued certificate, from the admin API, the panel or the CLI: renew
// it now, re-key it (renew now, dropping any order left open with a key made for it, so the new
// certificate has a new key), or revoke it at the CA with an RFC 5280 reason and renew it at once.
// Each is logged; the CA's limits (budget.ts, ca-limits.ts) still apply to the order each starts.
import type { Logger } from '../../../src/log/record.js';
import { OutpostError } from '../../../src/errors.js';
import type { DomainBook } from './book.js';
import { caIdentityOf } from './renewals.js';
import type { Issuer } from './issuer.js';
import type { DomainView, Revoked } from './protocol.js';

export type { Revoked };

export class OperatorActions {
  constructor(
    private readonly book: DomainBook,
    private readonly issuer: Issuer,
    private readonly log: Logger,
  ) {}

  async renew(name: string): Promise<DomainView> {
    const domain = await this.book.renewNow(name, 'renewed');
    this.log.info(`renewing ${domain.name} now, as the operator asked`);
    return domain;
  }

  async rekey(name: string): Promise<DomainView> {
    const domain = await this.book.renewNow(name, 're-keyed', (stored) => {
      if (stored.record.own_key)
        throw new OutpostError('ERR_CONFLICT', `the key of ${stored.record.name} is kept on its host: re-key it there (certhub-agent fetch --own-key --rekey)`);
      return this.issuer.forgetOrder(stored.record.name);
    });
    this.log.info(`re-keying ${domain.name} now, as the operator asked: its next certificate has a new key`);
    return domain;
  }

  async revoke(name: string, reason: string): Promise<Revoked> {
    let answer = '';
    const domain = await this.book.renewNow(name, 'revoked', async (stored) => {
      if (stored.material === undefined) throw new OutpostError('ERR_CONFLICT', `${stored.record.name} holds no certificate to revoke`);
      answer = await this.issuer.revoke(stored.material.cert_pem, reason, stored.record.issued_by === null ? null : caIdentityOf(stored.record.issued_by));
      this.log.warn(
        `revoked the certificate of ${stored.record.name} (reason ${reason}), as the operator asked: ${answer}; a new certificate with a new key is ordered now`,
      );
      await this.issuer.forgetOrder(stored.record.name);
    });
    return { domain, ca_answer: answer };
  }
}
