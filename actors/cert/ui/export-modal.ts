// The Export dialog: the ticked domains in one of the four formats, for a server URL that defaults to
// the page's origin. Format and server URL are remembered (prefs.json). Copy, or download as a file.
// The list holds no tokens: the dialog reads them when it opens.
import type { DomainSummary, DomainView } from '../browser.js';
import { copyButton } from '../../../ui/common/copy-button.js';
import { byId } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { fullViews } from './api.js';
import { exportText, fileNames, type ExportFormat } from './exports.js';
import { prefs, remember } from './prefs.js';
import { serverInfo } from './server-info.js';

const dialog = byId<HTMLDialogElement>('export');
const title = byId('export-title');
const form = byId<HTMLFormElement>('export-form');
const serverInput = byId<HTMLInputElement>('export-server');
const serverHint = byId('export-server-hint');
const output = byId<HTMLTextAreaElement>('export-output');
const actions = byId('export-actions');
const download = byId<HTMLButtonElement>('export-download');
let domains: DomainView[] = [];
/** The fingerprint of the server's self-signed certificate, which every export carries. */
let pin: string | undefined;
/** Dialogs opened so far: the tokens read for one that was closed and opened again are dropped. */
let openings = 0;

actions.prepend(copyButton('the export', () => output.value, output));
byId('export-close').addEventListener('click', () => dialog.close());
form.addEventListener('change', (event) => {
  const input = event.target as HTMLInputElement;
  if (input.name !== 'format') return;
  remember({ export_format: input.value as ExportFormat });
  draw();
});
serverInput.addEventListener('input', () => {
  const problem = serverProblem(serverInput.value.trim());
  serverHint.textContent = problem;
  serverInput.setAttribute('aria-invalid', String(problem !== ''));
  if (problem === '' || serverInput.value.trim() === '') remember({ export_server_url: serverUrl() === location.origin ? null : serverUrl() }, 'soon');
  draw();
});
download.addEventListener('click', () => {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([output.value], { type: 'text/plain' }));
  link.download = fileNames[prefs.export_format];
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
});

export function openExport(selected: DomainSummary[]): void {
  const opening = ++openings;
  domains = [];
  dialog.setAttribute('aria-busy', 'true');
  output.placeholder = 'Reading the tokens…';
  Promise.all([fullViews(selected), serverInfo()]).then(
    ([views, info]) => {
      if (opening !== openings) return;
      domains = views;
      pin = info.pin ?? undefined;
      dialog.setAttribute('aria-busy', 'false');
      output.placeholder = views.length === 0 ? 'The domains ticked are gone (removed meanwhile).' : '';
      draw();
    },
    (error: unknown) => {
      if (opening !== openings) return;
      dialog.setAttribute('aria-busy', 'false');
      output.placeholder = `Could not read the tokens: ${messageOf(error)}`;
    },
  );
  title.textContent = selected.length === 1 ? `Export ${selected[0]?.name ?? ''}` : `Export ${selected.length} domains`;
  for (const radio of form.querySelectorAll<HTMLInputElement>('input[name="format"]')) radio.checked = radio.value === prefs.export_format;
  serverInput.value = prefs.export_server_url ?? location.origin;
  serverHint.textContent = '';
  serverInput.removeAttribute('aria-invalid');
  draw();
  dialog.showModal();
}

/** The URL written into the export: the typed one when it is valid, else the page's origin. */
function serverUrl(): string {
  const typed = serverInput.value.trim().replace(/\/+$/, '');
  return typed !== '' && serverProblem(typed) === '' ? typed : location.origin;
}

function serverProblem(text: string): string {
  if (text === '') return "empty: the page's origin is used";
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? '' : 'must start with http:// or https://';
  } catch {
    return 'not a URL (e.g. https://certhub.example.com:8443)';
  }
}

function draw(): void {
  output.value = domains.length === 0 ? '' : exportText(prefs.export_format, domains, serverUrl(), pin);
}
