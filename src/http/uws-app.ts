// The one place uWS apps are made, so that none of them announces itself: uWS writes
// `uWebSockets: 20` into every response unless its thread's loop is told to be "silent" (its
// undocumented `_cfg('silent')`, which sets the loop's no-mark flag; the compile-time
// UWS_HTTPRESPONSE_NO_WRITEMARK is the only other way). The flag belongs to the thread's loop, so
// it is set in each thread before its first app.
import * as uws from 'uWebSockets.js';
import type { AppOptions, TemplatedApp } from 'uWebSockets.js';

/** `_cfg` is in the binary's exports but not in the package's type declarations. */
const configure = (uws as unknown as { _cfg?: (key: string) => void })._cfg;
let silenced = false;

function silenceThisThread(): void {
  if (silenced) return;
  if (configure === undefined) throw new Error('this uWebSockets.js build has no _cfg: its responses would carry a uWebSockets header');
  configure('silent');
  silenced = true;
}

/** A plain-HTTP app whose responses carry no uWebSockets header. */
export function plainApp(): TemplatedApp {
  silenceThisThread();
  return uws.App();
}

/** An HTTPS app whose responses carry no uWebSockets header. */
export function tlsServerApp(options: AppOptions): TemplatedApp {
  silenceThisThread();
  return uws.SSLApp(options);
}
