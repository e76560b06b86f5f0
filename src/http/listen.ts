// Listening with uWS, and handing a port over from one app to the next without refusing anyone.
//
// A new certificate is put in place the way nginx reloads: a second app listens on the same port
// (uSockets binds with SO_REUSEPORT), then the first one's listen socket is closed. The kernel resets
// the connections still waiting in a closed listen socket's accept queue (unless the host set
// net.ipv4.tcp_migrate_req), and the queue fills while the thread runs JavaScript, building the new
// app. So the close waits for the loop to poll once more first: uSockets then accepts everything
// queued, and only a connection arriving in the microseconds between that poll and the close is lost.
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { formatHostPort } from '../net/address.js';

/** Listens on host:port with `app`; rejects when the address is taken or not available. */
export function listenOn(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) reject(new Error(`cannot listen on ${formatHostPort(host, port)}: address in use or not available`));
      else resolve(socket);
    });
  });
}

/**
 * Resolves once the loop has polled again: before closing a listen socket another app of this thread
 * has just joined on its port. setImmediate runs after the poll phase of the loop's current turn,
 * which may have passed already; the second one runs after the next turn's poll, which accepts what
 * queued. The caller closes the socket only if nothing (a stop) closed its app meanwhile.
 */
export async function afterNextPoll(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
