// The PKCS#12 download of an expanded row: the admin types a password (and ticks the legacy form for
// old Java and Windows), certhub builds the file (POST .../bundle.p12, src/crypto/pkcs12.ts) and the
// page saves it as <domain>.p12. The password goes to certhub once, in the request, and is not kept.
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { call, domainPath } from './api.js';

export class P12Download {
  readonly node = element('form', 'p12-form');
  private readonly password = element('input');
  private readonly legacy = element('input');
  private readonly submit = element('button', '', 'Download .p12');
  private readonly said = element('small', 'hint');

  constructor(private readonly name: string) {
    const id = `p12-password-${name}`;
    const label = element('label', '', 'PKCS#12 password');
    label.htmlFor = id;
    this.password.id = id;
    this.password.type = 'password';
    this.password.autocomplete = 'new-password';
    this.password.required = true;
    this.legacy.type = 'checkbox';
    const legacyLabel = element('label', 'p12-legacy');
    legacyLabel.append(this.legacy, ' Legacy form (3DES, SHA-1) for old Java and Windows');
    this.submit.type = 'submit';
    this.said.setAttribute('aria-live', 'polite');
    this.node.append(label, this.password, legacyLabel, this.submit, this.said);
    this.node.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.download();
    });
  }

  /** Offered only while certhub holds the key: issued, and not kept on the host. */
  show(offered: boolean): void {
    this.node.hidden = !offered;
  }

  private async download(): Promise<void> {
    const password = this.password.value;
    if (password === '') return;
    this.submit.disabled = true;
    this.said.textContent = 'Building the file…';
    try {
      const response = await call(`${domainPath(this.name)}/bundle.p12`, { method: 'POST', body: { password, legacy: this.legacy.checked } });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `${this.name}.p12`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 0);
      this.password.value = '';
      this.said.textContent = `${this.name}.p12 downloaded.`;
    } catch (error) {
      this.said.textContent = messageOf(error);
    } finally {
      this.submit.disabled = false;
    }
  }
}
