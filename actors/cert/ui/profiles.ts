// The ACME profiles the CA offers, read once from GET api/admin/ca, for the add form's profile field
// and each expanded row's. A CA that lists none (or a demo) gets no profile field; a read that fails
// (the CA unreachable) leaves the fields hidden and is tried again by the next row that asks.
import type { CerthubCaInfo } from '../browser.js';
import { element } from '../../../ui/common/dom.js';
import { call } from './api.js';

export type CaProfiles = CerthubCaInfo & { profiles: Record<string, string> };

let reading: Promise<CaProfiles | null> | undefined;

/** The CA's answer when it lists profiles; null when it lists none or cannot be read now. */
export function caProfiles(): Promise<CaProfiles | null> {
  reading ??= call('api/admin/ca')
    .then((response) => response.json() as Promise<CerthubCaInfo>)
    .then(
      (ca) => (ca.profiles === null ? null : (ca as CaProfiles)),
      () => {
        reading = undefined;
        return null;
      },
    );
  return reading;
}

/** The options of a profile select: the default first (value ""), then each profile the CA lists, and `current` if it lists it no more. */
export function fillProfileOptions(select: HTMLSelectElement, ca: CaProfiles, current: string | null): void {
  const fallback = ca.default_profile === null ? "CA's default" : `default (${ca.default_profile})`;
  const names = Object.keys(ca.profiles);
  if (current !== null && !names.includes(current)) names.push(current);
  const options = [element('option', '', fallback), ...names.map((name) => element('option', '', name))];
  options.forEach((option, index) => {
    option.value = index === 0 ? '' : (names[index - 1] ?? '');
    const description = ca.profiles[option.value];
    if (description !== undefined && description !== '') option.title = description;
  });
  select.replaceChildren(...options);
  select.value = current ?? '';
}
