// An expanded row's names: the names the domain's certificate covers beside its own, listed, and
// edited as one line (`www.app, *.app`) checked as it is typed (validate.ts) and saved with PATCH; a
// saved change orders the certificate for the new set at once.
import type { DomainView } from '../browser.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { setNames } from './api.js';
import { namesProblem, splitNames } from './validate.js';

export class NamesField {
  /** The value cell of the row's facts. */
  readonly node = element('dd', 'names-row');
  private readonly list = element('ul', 'name-list');
  private readonly input = element('input');
  private readonly saveButton = element('button', '', 'Save');
  private readonly problem = element('small', 'hint');
  /** The names as the server holds them, relative to the base domain. */
  private saved = '';

  constructor(
    private readonly name: string,
    private readonly baseDomain: () => string,
    private readonly changed: (domain: DomainView) => void,
  ) {
    this.input.id = `names-${name}`;
    this.input.spellcheck = false;
    this.input.autocomplete = 'off';
    this.input.placeholder = 'www.app, *.app';
    this.input.setAttribute('aria-label', `Other names of ${name}`);
    this.saveButton.type = 'button';
    this.saveButton.setAttribute('aria-label', `Save the names of ${name}`);
    this.saveButton.hidden = true;
    this.problem.setAttribute('aria-live', 'polite');
    this.input.addEventListener('input', () => {
      const problem = namesProblem(this.input.value, this.baseDomain());
      this.problem.textContent = problem;
      this.input.setAttribute('aria-invalid', String(problem !== ''));
      this.saveButton.hidden = this.input.value.trim() === this.saved;
    });
    this.saveButton.addEventListener('click', () => {
      if (namesProblem(this.input.value, this.baseDomain()) !== '') return;
      this.problem.textContent = '';
      setNames(this.name, splitNames(this.input.value)).then(
        (domain) => this.changed(domain),
        (error: unknown) => (this.problem.textContent = messageOf(error)),
      );
    });
    const editor = element('div', 'names-editor');
    editor.append(this.input, this.saveButton);
    this.node.append(this.list, editor, this.problem);
  }

  /** The domain as the server holds it; a change being typed is left alone. */
  show(domain: DomainView): void {
    const base = this.baseDomain();
    const relative = domain.names.map((name) => (name === base ? '@' : base !== '' && name.endsWith(`.${base}`) ? name.slice(0, -(base.length + 1)) : name));
    this.list.replaceChildren(...[domain.name, ...domain.names].map((name) => element('li', '', name)));
    const text = relative.join(', ');
    const editing = document.activeElement === this.input || this.input.value.trim() !== this.saved;
    this.saved = text;
    if (!editing) this.input.value = text;
    this.saveButton.hidden = this.input.value.trim() === this.saved;
  }
}
