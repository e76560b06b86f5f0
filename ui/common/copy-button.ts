// A "Copy" button beside a command. The clipboard API exists only in a secure context (https or
// loopback); a page opened over plain http on a LAN address gets the command selected instead, so
// one Ctrl+C (or the phone's own copy) finishes the job.
import { element } from './dom.js';

const resetAfterMs = 1800;

export function copyButton(label: string, text: () => string, source: HTMLElement): HTMLButtonElement {
  const button = element('button', 'copy', 'Copy');
  button.type = 'button';
  button.setAttribute('aria-label', `Copy ${label}`);
  let reset: ReturnType<typeof setTimeout> | undefined;
  const tell = (message: string, outcome: 'copied' | 'selected') => {
    button.textContent = message;
    button.dataset.outcome = outcome;
    clearTimeout(reset);
    reset = setTimeout(() => {
      button.textContent = 'Copy';
      delete button.dataset.outcome;
    }, resetAfterMs);
  };
  button.addEventListener('click', () => {
    const select = () => {
      selectContents(source);
      tell('Selected', 'selected');
    };
    if (!window.isSecureContext || navigator.clipboard === undefined) {
      select();
      return;
    }
    navigator.clipboard.writeText(text()).then(() => tell('Copied', 'copied'), select);
  });
  return button;
}

function selectContents(node: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}
