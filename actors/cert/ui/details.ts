// What an expanded row shows: the target (editable), the names its certificate covers (editable, names-field.ts), expiry, the CA that issued the certificate, the ACME profile (editable, profile-field.ts), the last error (with Retry now while the
// domain is in error), the token (masked; Show, Copy, Rotate), where the key is kept, the .crt, .key and .p12 downloads, the last
// fetch, the hosts that report on it (hosts-view.ts), its host tokens (host-tokens-view.ts), the certificate's Renew now, Re-key and Revoke (lifecycle-actions.ts), and Remove. Rotate and Remove ask first, in an in-page dialog; a saved target says so. The list knows each domain's summary only: the rest
// (token included) is read when the row expands, and read again whenever the domain changes.
import { caNameOf, type DomainSummary, type DomainView } from '../browser.js';
import { copyButton } from '../../../ui/common/copy-button.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { ApiError, domainPath, getDomain, removeDomain, retryNow, rotateToken, setTarget } from './api.js';
import { dateTime, nextAttemptText } from './format.js';
import { targetProblem } from './validate.js';
import { ProfileField } from './profile-field.js';
import { NamesField } from './names-field.js';
import { lifecycleActions } from './lifecycle-actions.js';
import { HostsView } from './hosts-view.js';
import { HostTokensView } from './host-tokens-view.js';
import { confirmInDialog } from './confirm-dialog.js';
import { P12Download } from './p12-download.js';

export interface DetailsActions {
  changed(domain: DomainView): void;
  removed(name: string): void;
}

const mask = '•'.repeat(16);

export class DetailsView {
  readonly node = element('div', 'details');
  private readonly targetInput = element('input');
  private readonly targetError = element('small', 'hint');
  private readonly saveButton = element('button', '', 'Save');
  /** Shown when a save was refused over records certhub did not create: the same save, taking them over. */
  private readonly adoptButton = element('button', '', 'Take them over and save');
  private readonly recordType = element('span', 'muted');
  private readonly expires = element('dd');
  private readonly issued = element('dd');
  private readonly issuer = element('dd');
  private readonly issuerRow = element('div');
  private readonly error = element('span', 'details-error');
  private readonly retryButton = element('button', '', 'Retry now');
  private readonly errorRow = element('div');
  private readonly nextAttempt = element('dd');
  private readonly nextAttemptRow = element('div');
  private readonly token = element('code', 'token');
  private readonly showButton = element('button', '', 'Show');
  private readonly crt = element('a', 'button', 'Certificate (.crt)');
  private readonly key = element('a', 'button', 'Key (.key)');
  private readonly p12: P12Download;
  /** Where the key lives: certhub, or the host (own_key). */
  private readonly keyKept = element('dd');
  private readonly lastFetch = element('dd');
  private readonly profile: ProfileField;
  private readonly names: NamesField;
  private readonly profileRow = element('div');
  private readonly actionError = element('p', 'form-error');
  /** Renew now, Re-key and Revoke (lifecycle-actions.ts), while the domain is issued. */
  private readonly lifecycleRow = element('div');
  private readonly hosts: HostsView;
  private readonly hostTokens: HostTokensView;
  private readonly name: string;
  /** Undefined until the first read answers. */
  private domain: DomainView | undefined;
  /** Reads and answers so far: a read answers only if nothing newer came since it was sent. */
  private generation = 0;
  /** Reads so far: the hosts (which no action's answer carries) follow the latest read to answer. */
  private reads = 0;
  private tokenShown = false;

  constructor(domain: DomainSummary, actions: DetailsActions) {
    const id = `target-${domain.label}`;
    const facts = element('dl', 'details-facts');
    const targetForm = element('form', 'target-form');
    const targetLabel = element('label', '', 'Target');
    targetLabel.htmlFor = id;
    this.targetInput.id = id;
    this.targetInput.spellcheck = false;
    this.targetInput.autocomplete = 'off';
    this.targetError.setAttribute('aria-live', 'polite');
    this.saveButton.type = 'submit';
    this.adoptButton.type = 'button';
    this.adoptButton.hidden = true;
    targetForm.append(targetLabel, this.targetInput, this.saveButton, this.recordType, this.targetError, this.adoptButton);
    this.targetInput.addEventListener('input', () => {
      this.targetError.textContent = targetProblem(this.targetInput.value);
      this.targetError.classList.remove('saved');
      this.adoptButton.hidden = true;
    });
    const save = (adopt: boolean) => {
      const target = this.targetInput.value.trim();
      if (targetProblem(target) !== '' || target === '') return;
      this.adoptButton.hidden = true;
      this.targetError.classList.remove('saved');
      this.run(async () => {
        try {
          const answer = this.answered(await setTarget(domain.name, target, adopt));
          actions.changed(answer);
          this.targetError.textContent = `Saved: ${answer.record_type} record to ${answer.target}.`;
          this.targetError.classList.add('saved');
        } catch (error) {
          this.adoptButton.hidden = !foreignRecordsRefusal(error);
          throw error;
        }
      }, this.targetError);
    };
    targetForm.addEventListener('submit', (event) => {
      event.preventDefault();
      save(false);
    });
    this.adoptButton.addEventListener('click', () => save(true));

    this.showButton.type = 'button';
    // The button's name follows its visible word (WCAG 2.5.3), so it is not also a pressed toggle.
    this.showButton.setAttribute('aria-label', `Show the token of ${domain.name}`);
    this.showButton.addEventListener('click', () => {
      this.tokenShown = !this.tokenShown;
      const word = this.tokenShown ? 'Hide' : 'Show';
      this.showButton.textContent = word;
      this.showButton.setAttribute('aria-label', `${word} the token of ${domain.name}`);
      this.drawToken();
    });
    const copy = copyButton(`the token of ${domain.name}`, () => this.domain?.token ?? '', this.token);
    const rotate = element('button', '', 'Rotate…');
    rotate.type = 'button';
    rotate.setAttribute('aria-label', `Rotate the token of ${domain.name}`);
    rotate.addEventListener('click', () => {
      this.run(async () => {
        const asked = {
          title: `Rotate the token of ${domain.name}?`,
          text: 'Clients using the current token stop getting its certificate until they are given the new one.',
          confirm: 'Rotate',
          danger: true,
        };
        if (await confirmInDialog(asked)) actions.changed(this.answered(await rotateToken(domain.name)));
      }, this.actionError);
    });
    const tokenRow = element('dd', 'token-row');
    tokenRow.append(this.token, this.showButton, copy, rotate);

    this.crt.setAttribute('download', `${domain.name}.crt`);
    this.key.setAttribute('download', `${domain.name}.key`);
    const downloads = element('dd', 'downloads');
    this.p12 = new P12Download(domain.name);
    downloads.append(this.crt, this.key, this.p12.node);

    const remove = element('button', 'button-danger', 'Remove…');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Remove ${domain.name}`);
    remove.addEventListener('click', () => {
      this.run(async () => {
        const asked = { title: `Remove ${domain.name}?`, text: 'Its DNS record and certificate are deleted.', confirm: 'Remove', danger: true };
        if (!(await confirmInDialog(asked))) return;
        await removeDomain(domain.name);
        actions.removed(domain.name);
      }, this.actionError);
    });

    this.retryButton.type = 'button';
    this.retryButton.setAttribute('aria-label', `Retry ${domain.name} now`);
    this.retryButton.addEventListener('click', () => {
      this.run(async () => actions.changed(this.answered(await retryNow(domain.name))), this.actionError);
    });
    const errorValue = element('dd', 'error-row');
    errorValue.append(this.error, this.retryButton);
    this.errorRow.append(element('dt', '', 'Last error'), errorValue);
    this.nextAttempt.className = 'next-attempt';
    this.nextAttemptRow.append(element('dt', '', 'Next attempt'), this.nextAttempt);
    this.profile = new ProfileField(domain.name, (changed) => actions.changed(this.answered(changed)));
    // The base domain is what follows the label in the name.
    const baseDomain = domain.name.slice(domain.label.length + 1);
    this.names = new NamesField(
      domain.name,
      () => baseDomain,
      (changed) => actions.changed(this.answered(changed)),
    );
    const namesRow = element('div');
    namesRow.append(element('dt', '', 'Names'), this.names.node);
    const profileLabel = element('dt', '', 'Profile');
    this.profileRow.append(profileLabel, this.profile.node);
    this.profileRow.hidden = true;
    const lifecycle = lifecycleActions(domain.name, (changed) => actions.changed(this.answered(changed)));
    this.lifecycleRow.append(element('dt', '', 'Certificate'), lifecycle.buttons);
    this.issuerRow.append(element('dt', '', 'Issued by'), this.issuer);
    this.hosts = new HostsView(domain.name, () => this.reload());
    this.hostTokens = new HostTokensView(domain.name);
    facts.append(
      namesRow,
      fact('Expires', this.expires),
      fact('Issued', this.issued),
      this.issuerRow,
      this.profileRow,
      this.errorRow,
      this.nextAttemptRow,
      fact('Token', tokenRow),
      fact('Key', this.keyKept),
      fact('Download', downloads),
      fact('Last fetch', this.lastFetch),
      this.lifecycleRow,
      fact('Hosts', this.hosts.summary),
      fact('Host tokens', this.hostTokens.node),
    );
    this.actionError.setAttribute('role', 'alert');
    this.actionError.hidden = true;
    this.node.append(targetForm, facts, this.hosts.node, lifecycle.said, this.actionError, remove);
    this.name = domain.name;
    this.node.setAttribute('aria-busy', 'true');
    this.reload();
  }

  /** Reads the domain again (it changed); an older read still on its way is then ignored. */
  reload(): void {
    const generation = ++this.generation;
    const read = ++this.reads;
    this.hostTokens.load();
    getDomain(this.name).then(
      (domain) => {
        if (read === this.reads) this.hosts.show(domain);
        if (generation === this.generation) this.update(domain);
      },
      // A removed domain's row closes with the event that removed it; anything else is said here.
      (error: unknown) => {
        if (generation !== this.generation) return;
        this.actionError.textContent = `Could not read ${this.name}: ${messageOf(error)}`;
        this.actionError.hidden = false;
      },
    );
  }

  /** An action's answer: the domain as it is now, newer than any read still on its way. */
  private answered(domain: DomainView): DomainView {
    this.generation++;
    this.update(domain);
    return domain;
  }

  private update(domain: DomainView): void {
    const previous = this.domain;
    this.domain = domain;
    this.node.setAttribute('aria-busy', 'false');
    // A target being edited is left alone; one that still shows the old value follows the server.
    if (document.activeElement !== this.targetInput && (previous === undefined || this.targetInput.value === previous.target || this.targetInput.value === ''))
      this.targetInput.value = domain.target;
    this.recordType.textContent = `${domain.record_type} record`;
    this.expires.textContent = dateTime(domain.expires_at, 'not issued yet');
    this.issued.textContent = dateTime(domain.issued_at, 'not yet');
    // The CA by name (letsencrypt) or its directory's host; the whole directory URL on hover.
    this.issuerRow.hidden = domain.issued_by === null;
    this.issuer.textContent = domain.issued_by === null ? '' : caNameOf(domain.issued_by);
    this.issuer.title = domain.issued_by ?? '';
    this.errorRow.hidden = domain.error === null;
    this.error.textContent = domain.error ?? '';
    // The error stays shown while its retry runs; the button only while the domain waits in error.
    this.retryButton.hidden = domain.status !== 'error';
    this.lifecycleRow.hidden = domain.status !== 'issued';
    this.nextAttemptRow.hidden = domain.next_attempt_at === null;
    this.nextAttempt.textContent = nextAttemptText(domain.next_attempt_at, domain.waiting_for);
    this.profile.show(domain, this.profileRow);
    this.names.show(domain);
    this.drawToken();
    const issued = domain.expires_at !== null;
    this.keyKept.textContent = domain.own_key
      ? `key kept on the host: certhub holds none${domain.csr_wanted ? ', and waits for its CSR' : ''}${domain.csr === null ? '' : ` (${domain.csr.key_type})`}`
      : 'made and kept by certhub';
    for (const [link, file] of [
      [this.crt, 'cert.crt'],
      [this.key, 'key.key'],
    ] as const) {
      if (issued) link.href = `${domainPath(domain.name)}/${file}`;
      else link.removeAttribute('href');
      link.setAttribute('aria-disabled', String(!issued));
    }
    this.key.hidden = domain.own_key;
    this.p12.show(issued && !domain.own_key);
    this.lastFetch.textContent = domain.last_fetch === null ? 'never' : `${dateTime(domain.last_fetch.at)} from ${domain.last_fetch.from}`;
  }

  private drawToken(): void {
    this.token.textContent = this.tokenShown ? (this.domain?.token ?? '') : mask;
    this.token.dataset.masked = String(!this.tokenShown);
  }

  private run(action: () => Promise<void>, errorSlot: HTMLElement): void {
    this.actionError.hidden = true;
    errorSlot.textContent = '';
    action().catch((error: unknown) => {
      errorSlot.textContent = messageOf(error);
      errorSlot.hidden = false;
    });
  }
}

/** The 409 that names address records certhub did not create (provider.ts, foreignRecordsConflict). */
function foreignRecordsRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409 && error.message.includes('certhub did not create');
}

function fact(term: string, value: HTMLElement): HTMLElement {
  const row = element('div');
  row.append(element('dt', '', term), value);
  return row;
}
