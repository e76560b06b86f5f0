// An expanded row's profile: the ACME profile the domain's next orders name, chosen among those the CA
// lists, and saved with PATCH. Hidden when the CA lists none and the domain names none.
import type { DomainView } from '../browser.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { setProfile } from './api.js';
import { caProfiles, fillProfileOptions } from './profiles.js';

export class ProfileField {
  /** The value cell of the row's facts; its row is hidden with `hidden`. */
  readonly node = element('dd', 'profile-row');
  private readonly select = element('select');
  private readonly saveButton = element('button', '', 'Save');
  private readonly problem = element('small', 'profile-problem');
  /** The profile the server holds for the domain. */
  private saved: string | null = null;

  constructor(
    private readonly name: string,
    private readonly changed: (domain: DomainView) => void,
  ) {
    this.select.id = `profile-${name}`;
    this.select.setAttribute('aria-label', `ACME profile of ${name}`);
    this.saveButton.type = 'button';
    this.saveButton.setAttribute('aria-label', `Save the profile of ${name}`);
    this.saveButton.hidden = true;
    this.problem.setAttribute('role', 'alert');
    this.select.addEventListener('change', () => {
      this.saveButton.hidden = this.chosen() === this.saved;
      this.problem.textContent = '';
    });
    this.saveButton.addEventListener('click', () => {
      this.problem.textContent = '';
      setProfile(this.name, this.chosen()).then(
        (domain) => this.changed(domain),
        (error: unknown) => (this.problem.textContent = messageOf(error)),
      );
    });
    this.node.append(this.select, this.saveButton, this.problem);
  }

  /** The domain as the server holds it; `row` is hidden unless there is a profile to show or choose. */
  show(domain: DomainView, row: HTMLElement): void {
    // A choice not saved yet stays while the server's profile is the one it was made against.
    const editing = this.saveButton.hidden === false && domain.profile === this.saved;
    this.saved = domain.profile;
    void caProfiles().then((ca) => {
      row.hidden = ca === null && domain.profile === null;
      if (ca === null) {
        this.select.replaceChildren(element('option', '', domain.profile ?? ''));
        this.select.disabled = true;
        return;
      }
      this.select.disabled = false;
      if (editing) return;
      fillProfileOptions(this.select, ca, domain.profile);
      this.saveButton.hidden = true;
    });
  }

  private chosen(): string | null {
    return this.select.value === '' ? null : this.select.value;
  }
}
