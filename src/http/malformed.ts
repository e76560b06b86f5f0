// The answer to a request head a front will not frame (request-framing.ts): 400 with a JSON error,
// and the connection closed, since nothing after such a head can be trusted to start where it seems to.
//
// uWS goes on parsing requests pipelined behind one answered with `Connection: close` when they came
// in the same read (seen with uws-pack 20.0.8: `GET /bad` answered 400, then `GET /smuggled` in the
// same packet reached its handler). So the client's address is remembered until the end of this turn
// of the event loop, and a request from it in the same turn is never answered: its connection is
// closed right after the 400. Another connection from the same address in the same turn would be
// dropped too; it can only be a client sending malformed heads, and a retry gets through.
import type { HttpResponse } from 'uWebSockets.js';

const refusedThisTurn = new Set<string>();

function addressOf(res: HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

export function refuseMalformed(res: HttpResponse, problem: string): void {
  if (refusedThisTurn.size === 0) setImmediate(() => refusedThisTurn.clear());
  refusedThisTurn.add(addressOf(res));
  res.cork(() => {
    res
      .writeStatus('400 Bad Request')
      .writeHeader('content-type', 'application/json')
      .end(JSON.stringify({ error: `malformed request: ${problem}` }), true);
  });
}

/**
 * True when the request follows a refusal in the same read: it is never answered, and its connection
 * is closed on the next turn, once the 400 before it has been flushed (uWS waits for the pending
 * request otherwise).
 */
export function dropAfterRefusal(res: HttpResponse): boolean {
  if (refusedThisTurn.size === 0 || !refusedThisTurn.has(addressOf(res))) return false;
  let aborted = false;
  res.onAborted(() => (aborted = true));
  setImmediate(() => {
    if (!aborted) res.close();
  });
  return true;
}
