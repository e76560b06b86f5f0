// One CA of acme.cas as the acme actor holds it: its account, opened on first need (a CA that is down,
// or a directory URL that is wrong, must not keep certhub from starting and serving the certificates it
// has), registered again once for all the orders that met a CA which forgot it, and the orders left
// open at it (orders.json in its account folder).
import type { Logger } from '../../../src/log/record.js';
import type { KeyType } from '../key-types.js';
import { openAcmeAccount, type AcmeAccount } from './account.js';
import type { EabConfig } from './eab.js';
import { OrderJournal } from './order-journal.js';
import { FileDocuments } from '../store/documents.js';

export interface CaAccountSettings {
  directoryUrl: string;
  /** The account's folder (account-folders.ts). */
  dir: string;
  email?: string;
  eab?: EabConfig;
  acceptTerms: boolean;
  caBundlePem?: string;
  keyType: KeyType;
  generateKey: (keyType: KeyType) => Promise<string>;
}

export class CaAccount {
  private current: Promise<AcmeAccount> | undefined;
  private registering: Promise<AcmeAccount> | undefined;
  /** The account last opened, kept while it is replaced. */
  opened: AcmeAccount | undefined;

  private constructor(
    readonly settings: CaAccountSettings,
    readonly orders: OrderJournal,
    private readonly log: Logger,
    /** Told when the account opens (true) or fails to (false, with the reason). */
    private readonly onState: (open: boolean, reason?: string) => void,
  ) {}

  static async open(settings: CaAccountSettings, log: Logger, onState: (open: boolean, reason?: string) => void): Promise<CaAccount> {
    const orders = await OrderJournal.open(new FileDocuments(settings.dir));
    return new CaAccount(settings, orders, log, onState);
  }

  get directoryUrl(): string {
    return this.settings.directoryUrl;
  }

  /** The account, opened (or registered) when first asked for; a failure is thrown to the asker and tried again by the next. */
  account(): Promise<AcmeAccount> {
    this.current ??= this.openWith(false).then(
      (ready) => {
        this.log.info(`acme: account ${ready.accountUrl} at ${ready.directoryUrl}`);
        this.opened = ready;
        this.onState(true);
        return ready;
      },
      (error: unknown) => {
        this.current = undefined;
        if (this.opened === undefined) this.onState(false, error instanceof Error ? error.message : String(error));
        throw error;
      },
    );
    return this.current;
  }

  /** The CA forgot `stale` (a CA that lost its state): the same key is registered again, once for all the orders that met it. */
  registerAgain(stale: AcmeAccount): Promise<AcmeAccount> {
    if (this.opened !== stale) return this.account();
    this.log.warn(`acme: the CA no longer knows account ${stale.accountUrl}; registering the account key again`);
    this.registering ??= this.openWith(true)
      .then((fresh) => {
        this.opened = fresh;
        this.current = Promise.resolve(fresh);
        stale.close();
        this.log.info(`acme: account ${fresh.accountUrl} at ${fresh.directoryUrl}`);
        return fresh;
      })
      .finally(() => (this.registering = undefined));
    return this.registering;
  }

  close(): void {
    this.opened?.close();
  }

  private openWith(registerAgain: boolean): Promise<AcmeAccount> {
    const { settings } = this;
    return openAcmeAccount({
      directoryUrl: settings.directoryUrl,
      ...(settings.email === undefined ? {} : { email: settings.email }),
      ...(settings.caBundlePem === undefined ? {} : { caBundlePem: settings.caBundlePem }),
      ...(settings.eab === undefined ? {} : { eab: settings.eab }),
      acceptTerms: settings.acceptTerms,
      dir: settings.dir,
      keyType: settings.keyType,
      generateKey: settings.generateKey,
      registerAgain,
    });
  }
}
