// The panel's remembered choices (prefs.json on the server): read once after login, written back as
// the user changes them. A filter being typed is written once typing pauses, not per keystroke.
import type { Prefs } from '../browser.js';
import { savePrefs } from './api.js';

const typingPauseMs = 400;

export const prefs: Prefs = { export_format: 'fetch-json', export_server_url: null, sort: { key: 'name', direction: 'asc' }, filter: '' };

let pendingUpdate: Partial<Prefs> = {};
let timer: ReturnType<typeof setTimeout> | undefined;
let saving: Promise<unknown> = Promise.resolve();

export function adopt(loaded: Prefs): void {
  Object.assign(prefs, loaded);
}

/** Remembers `update` now and saves it to the server, at once or (`soon`) when typing pauses. */
export function remember(update: Partial<Prefs>, when: 'now' | 'soon' = 'now'): void {
  Object.assign(prefs, update);
  pendingUpdate = { ...pendingUpdate, ...update };
  clearTimeout(timer);
  if (when === 'soon') timer = setTimeout(flush, typingPauseMs);
  else flush();
}

/** Resolves once every change so far is on the server (tests and page unload wait on it). */
export function saved(): Promise<unknown> {
  return saving;
}

function flush(): void {
  const update = pendingUpdate;
  pendingUpdate = {};
  timer = undefined;
  // One save at a time, in order, so an older write never lands after a newer one.
  saving = saving
    .then(() => savePrefs(update))
    .catch(() => {
      document.body.dataset.prefs = 'unsaved';
    });
}
