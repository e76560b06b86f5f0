// The certificate's lifecycle in an expanded row: Renew now, Re-key and Revoke, shown while the domain
// is issued. Each asks first in a modal dialog that says what will happen (Revoke with the reason to
// give the CA; confirm-dialog.ts), and says afterwards what the server did (for Revoke, the CA's answer).
import { revocationReasonNames, type DomainView } from '../browser.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { rekey, renewNow, revoke } from './api.js';
import { confirmInDialog } from './confirm-dialog.js';

interface Action {
  label: string;
  title: string;
  text: string;
  confirm: string;
  danger: boolean;
  /** Whether the dialog asks for a revocation reason. */
  reason: boolean;
  run(name: string, reason: string): Promise<{ domain: DomainView; said: string }>;
}

const actions: readonly Action[] = [
  {
    label: 'Renew now…',
    title: 'Renew now',
    text: 'A new certificate is ordered now. The current one is served until it arrives; the CA counts the order against its limits.',
    confirm: 'Renew now',
    danger: false,
    reason: false,
    run: async (name) => ({ domain: await renewNow(name), said: 'Renewal started.' }),
  },
  {
    label: 'Re-key…',
    title: 'Re-key',
    text: 'A new certificate with a new private key is ordered now. Clients get the new key at their next fetch.',
    confirm: 'Re-key',
    danger: false,
    reason: false,
    run: async (name) => ({ domain: await rekey(name), said: 'Re-key started: the next certificate has a new key.' }),
  },
  {
    label: 'Revoke…',
    title: 'Revoke the certificate',
    text: 'The CA is asked to revoke the certificate served now; clients that check revocation refuse it from then on. A new certificate with a new key is ordered at once.',
    confirm: 'Revoke',
    danger: true,
    reason: true,
    run: async (name, reason) => {
      const answer = await revoke(name, reason);
      return { domain: answer.domain, said: `The CA answered: ${answer.ca_answer}` };
    },
  },
];

/** The buttons' row, and what the last action said; `changed` gets the domain as the server answered. */
export function lifecycleActions(name: string, changed: (domain: DomainView) => void): { buttons: HTMLElement; said: HTMLElement } {
  const buttons = element('dd', 'lifecycle-actions');
  const said = element('p', 'lifecycle-said');
  said.setAttribute('role', 'status');
  said.hidden = true;
  for (const action of actions) {
    const button = element('button', action.danger ? 'button-danger' : '', action.label);
    button.type = 'button';
    button.setAttribute('aria-label', `${action.title} ${name}`);
    button.addEventListener('click', () => {
      confirmAction(action, name).then(
        async (reason) => {
          if (reason === undefined) return;
          said.hidden = true;
          try {
            const done = await action.run(name, reason);
            changed(done.domain);
            said.textContent = done.said;
            said.classList.remove('form-error');
          } catch (error) {
            said.textContent = messageOf(error);
            said.classList.add('form-error');
          }
          said.hidden = false;
        },
        () => {},
      );
    });
    buttons.append(button);
  }
  return { buttons, said };
}

/** Asks in the confirmation dialog; resolves with the reason ('' when none is asked) once confirmed, undefined when cancelled. */
async function confirmAction(action: Action, name: string): Promise<string | undefined> {
  const fields: HTMLElement[] = [];
  const reason = element('select');
  if (action.reason) {
    const label = element('label', '', 'Reason (RFC 5280)');
    reason.id = 'revocation-reason';
    label.htmlFor = reason.id;
    for (const name of revocationReasonNames) reason.append(new Option(name, name, name === 'superseded', name === 'superseded'));
    fields.push(label, reason);
  }
  const confirmed = await confirmInDialog({ title: `${action.title}: ${name}?`, text: action.text, confirm: action.confirm, danger: action.danger, fields });
  if (!confirmed) return undefined;
  return action.reason ? reason.value : '';
}
