// The add form (name, target, and the ACME profile when the CA lists profiles): checked as the user types, and blank fields told when it is sent. Each add is its own
// request, so the next domain can be typed (and added) while one is on its way; an answer clears only
// the fields that still hold what that add sent, never what was typed since.
import type { DomainView } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { addDomain } from './api.js';
import { caProfiles, fillProfileOptions } from './profiles.js';
import { blankProblem, nameProblem, namesProblem, splitNames, targetProblem } from './validate.js';

/** `baseDomain()` is read at each check (the list learns it); `added` gets each domain the server added. */
export function setUpAddForm(baseDomain: () => string, added: (domain: DomainView) => void): void {
  const form = byId<HTMLFormElement>('add-form');
  const name = byId<HTMLInputElement>('add-name');
  const target = byId<HTMLInputElement>('add-target');
  const names = byId<HTMLInputElement>('add-names');
  const error = byId('add-error');
  const profile = byId<HTMLSelectElement>('add-profile');
  /** The adds on their way, as `name target`: sending the same again (a double click) adds once. */
  const sending = new Set<string>();

  const check = (sent: boolean) => {
    const problems = [
      nameProblem(name.value, baseDomain()) || (sent && name.value.trim() === '' ? blankProblem.name : ''),
      targetProblem(target.value) || (sent && target.value.trim() === '' ? blankProblem.target : ''),
      namesProblem(names.value, baseDomain()),
    ];
    [name, target, names].forEach((input, index) => {
      const problem = problems[index] ?? '';
      byId(`${input.id}-hint`).textContent = problem;
      input.setAttribute('aria-invalid', String(problem !== ''));
    });
    return problems.every((problem) => problem === '');
  };
  name.addEventListener('input', () => check(false));
  target.addEventListener('input', () => check(false));
  names.addEventListener('input', () => check(false));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.hidden = true;
    if (!check(true)) return;
    const sent = {
      name: name.value.trim(),
      target: target.value.trim(),
      profile: profile.value === '' ? undefined : profile.value,
      names: splitNames(names.value),
      namesText: names.value,
    };
    const key = `${sent.name} ${sent.target}`;
    if (sending.has(key)) return;
    sending.add(key);
    form.setAttribute('aria-busy', 'true');
    addDomain(sent.name, sent.target, sent.profile, sent.names)
      .then((domain) => {
        added(domain);
        if (name.value.trim() === sent.name) name.value = '';
        if (target.value.trim() === sent.target) target.value = '';
        if (names.value === sent.namesText) names.value = '';
        check(false);
        // Back to the first field only when nothing new was started there and focus is not in a field.
        if (name.value === '' && target.value === '' && !(document.activeElement instanceof HTMLInputElement)) name.focus();
      })
      .catch((failure: unknown) => {
        error.textContent = `Could not add ${sent.name}: ${messageOf(failure)}`;
        error.hidden = false;
      })
      .finally(() => {
        sending.delete(key);
        form.setAttribute('aria-busy', String(sending.size > 0));
      });
  });
}

/** Once logged in: the profile field, filled with the CA's profiles; a CA that lists none keeps the form as it is. */
export async function offerProfiles(): Promise<void> {
  const ca = await caProfiles();
  if (ca === null) return;
  fillProfileOptions(byId<HTMLSelectElement>('add-profile'), ca, null);
  byId('add-profile-field').hidden = false;
}
