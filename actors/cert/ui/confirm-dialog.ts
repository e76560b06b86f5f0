// The panel's in-page confirmation: a modal <dialog> that says what an action will do, with Cancel
// (focused first) and the action's own button. Renew now, Re-key and Revoke (lifecycle-actions.ts)
// and a host's Remove (hosts-view.ts) ask through it.
import { element } from '../../../ui/common/dom.js';

export interface Confirmation {
  title: string;
  text: string;
  /** The confirming button's words. */
  confirm: string;
  danger: boolean;
  /** Fields shown between the text and the buttons (Revoke's reason). */
  fields?: readonly HTMLElement[];
}

/** Resolves true once confirmed, false when cancelled (Cancel, Escape). */
export function confirmInDialog({ title, text, confirm, danger, fields = [] }: Confirmation): Promise<boolean> {
  const dialog = element('dialog', 'confirm-action');
  dialog.setAttribute('aria-labelledby', 'confirm-action-title');
  const form = element('form');
  form.method = 'dialog';
  const heading = element('h2', '', title);
  heading.id = 'confirm-action-title';
  form.append(heading, element('p', '', text), ...fields);
  const cancel = element('button', '', 'Cancel');
  cancel.type = 'button';
  cancel.value = 'cancel';
  const accept = element('button', danger ? 'button-danger' : 'button-primary', confirm);
  accept.type = 'submit';
  accept.value = 'confirm';
  const row = element('div', 'dialog-buttons');
  row.append(cancel, accept);
  form.append(row);
  dialog.append(form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    cancel.addEventListener('click', () => dialog.close('cancel'));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    dialog.showModal();
    cancel.focus();
  });
}
