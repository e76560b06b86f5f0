// The host tokens of an expanded row: each token's host, id, creation and last use with its Revoke
// (asked first, confirm-dialog.ts), and a form that issues one for a named host. A token issued is
// shown once, with Copy, until the row closes or another is issued: certhub keeps its digest only.
import { hostTokenHostProblem, type HostTokenView, type IssuedHostToken } from '../browser.js';
import { copyButton } from '../../../ui/common/copy-button.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { issueHostToken, listHostTokens, revokeHostToken } from './api.js';
import { confirmInDialog } from './confirm-dialog.js';
import { dateTime } from './format.js';

export class HostTokensView {
  /** The value of the details' Host tokens fact. */
  readonly node = element('dd', 'host-tokens');
  private readonly list = element('ul', 'host-token-list');
  private readonly none = element('p', 'muted', 'None: every host fetches with the domain token.');
  private readonly form = element('form', 'host-token-form');
  private readonly hostInput = element('input');
  private readonly said = element('small', 'hint');
  private readonly issued = element('div', 'host-token-issued');
  private readonly issuedToken = element('code', 'host-token-value');
  private readonly issuedWords = element('p');
  private shownToken = '';
  /** Reads so far: only the latest to answer is drawn. */
  private reads = 0;

  constructor(private readonly domain: string) {
    const id = `host-token-host-${domain}`;
    const label = element('label', '', 'Host name');
    label.htmlFor = id;
    this.hostInput.id = id;
    this.hostInput.spellcheck = false;
    this.hostInput.autocomplete = 'off';
    this.hostInput.placeholder = 'web1';
    this.hostInput.maxLength = 253;
    const submit = element('button', '', 'Issue token');
    submit.type = 'submit';
    submit.setAttribute('aria-label', `Issue token for a host of ${domain}`);
    this.said.setAttribute('aria-live', 'polite');
    this.form.append(label, this.hostInput, submit, this.said);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.issue();
    });
    this.hostInput.addEventListener('input', () => {
      this.said.textContent = this.hostInput.value === '' ? '' : (hostTokenHostProblem(this.hostInput.value) ?? '');
      this.said.classList.remove('form-error');
    });

    this.issued.setAttribute('role', 'status');
    this.issued.hidden = true;
    const tokenRow = element('div', 'token-row');
    tokenRow.append(
      this.issuedToken,
      copyButton(`the new host token of ${domain}`, () => this.shownToken, this.issuedToken),
    );
    this.issued.append(this.issuedWords, tokenRow);
    this.list.setAttribute('aria-label', `Host tokens of ${domain}`);
    this.node.append(this.list, this.none, this.issued, this.form);
  }

  /** Reads the tokens again (the row expanded, or the domain changed). */
  load(): void {
    const read = ++this.reads;
    listHostTokens(this.domain).then(
      (tokens) => {
        if (read === this.reads) this.draw(tokens);
      },
      // A removed domain's row closes with the event that removed it; anything else is said here.
      (error: unknown) => {
        if (read === this.reads) this.tell(messageOf(error), true);
      },
    );
  }

  private draw(tokens: readonly HostTokenView[]): void {
    this.list.replaceChildren(...tokens.map((token) => this.item(token)));
    this.list.hidden = tokens.length === 0;
    this.none.hidden = tokens.length > 0;
  }

  private item(token: HostTokenView): HTMLElement {
    const item = element('li', 'host-token');
    item.dataset.id = token.id;
    const name = element('strong', 'host-name', token.host);
    const facts = element('span', 'muted', `id ${token.id} · created ${dateTime(token.created_at)} · last used ${dateTime(token.last_used_at, 'never')}`);
    const revoke = element('button', 'button-quiet', 'Revoke…');
    revoke.type = 'button';
    revoke.setAttribute('aria-label', `Revoke the host token of ${token.host} for ${this.domain}`);
    revoke.addEventListener('click', () => void this.revoke(token));
    item.append(name, facts, revoke);
    return item;
  }

  private async issue(): Promise<void> {
    const host = this.hostInput.value;
    const problem = hostTokenHostProblem(host);
    if (problem !== undefined) {
      this.tell(problem, true);
      return;
    }
    try {
      this.showIssued(await issueHostToken(this.domain, host));
      this.hostInput.value = '';
      this.tell('', false);
      this.load();
    } catch (error) {
      this.tell(messageOf(error), true);
    }
  }

  private showIssued(issued: IssuedHostToken): void {
    this.shownToken = issued.token;
    this.issuedToken.textContent = issued.token;
    this.issuedWords.textContent = `Token for ${issued.host}, shown once: copy it now to the host (certhub-agent -t, or its token file). certhub keeps only its digest.`;
    this.issued.hidden = false;
  }

  private async revoke(token: HostTokenView): Promise<void> {
    const confirmed = await confirmInDialog({
      title: `Revoke the host token of ${token.host}?`,
      text: `${token.host}'s next request to certhub for ${this.domain} is refused. The domain token and the other hosts' tokens keep working.`,
      confirm: 'Revoke',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await revokeHostToken(this.domain, token.id);
      this.tell(`The host token of ${token.host} is revoked.`, false);
    } catch (error) {
      this.tell(messageOf(error), true);
    }
    this.load();
  }

  private tell(words: string, isError: boolean): void {
    this.said.textContent = words;
    this.said.classList.toggle('form-error', isError);
  }
}
