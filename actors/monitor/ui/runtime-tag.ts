// The coloured tag beside an interpreter process (`python 3.11`). Each runtime keeps one hue so the
// eye learns it; a runtime this list does not know gets a hue derived from its name, still stable.
import type { RuntimeTag } from '../browser.js';
import { element } from '../../../ui/common/dom.js';

const knownHues: Readonly<Record<string, number>> = { python: 210, node: 125, ruby: 355, perl: 275, java: 30 };

export function runtimeTag(runtime: RuntimeTag): HTMLElement {
  // Major.minor is what tells interpreters apart; the full version stays in the tooltip.
  const shortVersion = runtime.version.split('.').slice(0, 2).join('.');
  const tag = element('span', 'tag tag-runtime', shortVersion === '' ? runtime.name : `${runtime.name} ${shortVersion}`);
  tag.style.setProperty('--tag-hue', String(hueOf(runtime.name)));
  tag.dataset.runtime = runtime.name;
  if (runtime.version !== '') tag.title = `${runtime.name} ${runtime.version}`;
  return tag;
}

function hueOf(name: string): number {
  const known = knownHues[name];
  if (known !== undefined) return known;
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 360;
  return hash;
}
