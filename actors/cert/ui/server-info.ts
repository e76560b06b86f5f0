// How this certhub is served (GET /api/admin/server): the pin of its self-signed certificate, which the
// panel shows under the top bar and every export carries, or plain HTTP off loopback, shown in red.
import type { CerthubServerInfo } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { call } from './api.js';

let loaded: Promise<CerthubServerInfo> | undefined;

/** Read once per page, after login. */
export function serverInfo(): Promise<CerthubServerInfo> {
  loaded ??= call('api/admin/server').then((response) => response.json() as Promise<CerthubServerInfo>);
  return loaded;
}

export async function showServerInfo(): Promise<void> {
  const { pin, insecure_http: insecure } = await serverInfo();
  const line = byId('server-security');
  if (pin !== null) {
    line.dataset.kind = 'pinned';
    const code = document.createElement('code');
    code.textContent = pin;
    line.replaceChildren('Self-signed certificate ', code, ' (agents pin it; every export carries it)');
  } else if (insecure) {
    line.dataset.kind = 'insecure';
    line.textContent = 'Plain HTTP off loopback (insecure_http): the admin key, the tokens and the private keys cross the network in clear.';
  } else {
    return;
  }
  line.hidden = false;
}
