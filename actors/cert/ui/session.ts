// The login dialog. It opens over the page (a modal <dialog>), so a session that ends mid-task leaves
// every form, filter and expanded row as it was behind it; once the key is accepted the calls that
// found the session gone are sent again (api.ts).
import { byId } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { ApiError, login, type SessionEnd } from './api.js';
import { unreachableError } from './reachability.js';

const dialog = byId<HTMLDialogElement>('login');
const form = byId<HTMLFormElement>('login-form');
const keyInput = byId<HTMLInputElement>('login-key');
const reasonText = byId('login-reason');
const errorText = byId('login-error');
const submit = byId<HTMLButtonElement>('login-submit');

const firstReason = reasonText.textContent ?? '';
let pending: Promise<void> | undefined;
let resolvePending: (() => void) | undefined;

// The key is the only way back in: Esc must not leave an empty dialog-less page that cannot work.
dialog.addEventListener('cancel', (event) => event.preventDefault());

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = keyInput.value;
  if (key === '') return;
  submit.disabled = true;
  errorText.hidden = true;
  login(key)
    .then(
      () => {
        keyInput.value = '';
        document.body.dataset.session = 'in';
        dialog.close();
        resolvePending?.();
        pending = undefined;
        resolvePending = undefined;
      },
      (error: unknown) => showError(error),
    )
    .finally(() => {
      submit.disabled = false;
    });
});

let attempts = 0;

function showError(error: unknown): void {
  errorText.hidden = false;
  // Tells a reader (and the tests) that this message is new even when its words are the same.
  errorText.dataset.attempt = String(++attempts);
  if (error instanceof ApiError && error.status === 401) errorText.textContent = 'Wrong admin key.';
  else if (error instanceof ApiError && error.status === 429) {
    const seconds = error.retryAfterSeconds ?? 30;
    const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString();
    errorText.textContent = `Too many wrong keys. Try again in ${seconds} s (at ${at}).`;
  } else if (unreachableError(error)) errorText.textContent = 'certhub is not reachable. Try again once it is back.';
  else errorText.textContent = `Could not log in: ${messageOf(error)}`;
  keyInput.select();
}

const endedReasons: Record<SessionEnd, string> = {
  ended: 'Your session has ended. Enter the admin key to carry on where you were.',
  // Sessions are kept in certhub's memory only (actors/cert/site/sessions.ts).
  restarted: 'certhub restarted, which ends every session. Enter the admin key to carry on where you were.',
};

/** Opens the login dialog (once, however many callers ask) and resolves when the key is accepted. */
export function askForKey(why: SessionEnd | 'start'): Promise<void> {
  if (pending !== undefined) return pending;
  document.body.dataset.session = 'out';
  reasonText.textContent = why === 'start' ? firstReason : endedReasons[why];
  errorText.hidden = true;
  pending = new Promise((resolve) => {
    resolvePending = resolve;
  });
  if (!dialog.open) dialog.showModal();
  keyInput.focus();
  return pending;
}
