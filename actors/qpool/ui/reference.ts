// The endpoint reference: one entry per endpoint with a curl line aimed at this page's own origin,
// so what is copied works as it is from a shell that can reach the same address.
import { element } from '../../../ui/common/dom.js';
import { copyButton } from '../../../ui/common/copy-button.js';
import { curlCommand, endpoints, type Endpoint } from './endpoints.js';

export function renderReference(list: HTMLElement, baseUrl: HTMLElement, origin: string): void {
  baseUrl.textContent = origin;
  list.replaceChildren(...endpoints.map((endpoint) => entry(endpoint, origin)));
}

function entry(endpoint: Endpoint, origin: string): HTMLLIElement {
  const item = element('li', 'endpoint');
  item.dataset.path = endpoint.path;

  const head = element('div', 'endpoint-head');
  head.append(element('span', 'method', 'GET'), element('code', 'endpoint-path', endpoint.path));
  if (endpoint.takesValue) head.append(element('span', 'takes-value', 'takes a value'));

  const command = curlCommand(endpoint, origin);
  const code = element('code', 'curl', command);
  const line = element('div', 'command');
  // The button comes first and floats, so the command wraps around it and uses the full width below.
  line.append(
    copyButton(`curl command for ${endpoint.path}`, () => command, code),
    code,
  );

  item.append(head, element('p', 'endpoint-summary', endpoint.summary), line);
  return item;
}
