// How acme-client reaches the CA. acme-client sends every request through one axios instance of its
// own; interceptors, installed once per thread, make each call use the HTTPS agent of the connection
// that made it (so an extra CA, e.g. Pebble's, is trusted beside the system's roots), record a
// Retry-After the CA sends with a refusal (acme-client drops it), and keep the cause of a failure to
// connect. The connection is found through AsyncLocalStorage: acme-client passes no context of its own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from 'node:https';
import acme, { type Client } from 'acme-client';
import { retryAfterMs } from '../../../src/http/retry-after.js';
import { secureContextTrusting } from '../../../src/net/extra-ca.js';

export interface CaCallState {
  /** Seconds the CA asked to wait, from the last refusal that carried Retry-After. */
  retryAfterSeconds?: number;
  /** The RFC 8555 problem type of the last refusal (`urn:ietf:params:acme:error:…`), when it had one. */
  problemType?: string;
  /** That refusal's `detail` and `instance` (RFC 7807), when it had them: a paused identifier's unpause URL is in one (paused.ts). */
  problemDetail?: string;
  problemInstance?: string;
}

interface CaCallContext {
  agent: Agent;
  /** The most one request may take, from its start to the end of its answer. */
  timeoutMs: number;
  state: CaCallState;
  /** Unused nonces from the CA's answers, newest last. */
  nonces: string[];
}

/**
 * The most read of one answer from the CA. The largest an ACME CA sends is a certificate chain (a few
 * KiB; Let's Encrypt's with its cross-sign is under 8 KiB): a CA answering without end fails the step
 * instead of filling memory (axios reads any length by default; a 512 MiB directory grew RSS by 1 GiB).
 */
export const maxCaAnswerBytes = 1024 * 1024;

/**
 * The most one request to the CA may take. axios waits for ever by default: a CA that accepts the
 * connection and never answers (a partition that drops packets, a stuck proxy) held the order, and
 * its place among the orders run at once, until a restart. Let's Encrypt answers in well under a
 * second; a minute leaves room for a slow finalize.
 */
export const caRequestTimeoutMs = 60_000;

/** Nonces kept for reuse; more are never needed by the orders of one connection at once. */
const maxKeptNonces = 32;

const calls = new AsyncLocalStorage<CaCallContext>();
let interceptorsInstalled = false;

function installInterceptors(): void {
  if (interceptorsInstalled) return;
  interceptorsInstalled = true;
  // acme-client retries a 429 or 5xx itself, sleeping as long as Retry-After says, up to 5 times inside
  // one call: an order would hang for hours. It fails at once instead; the caller's per-domain backoff
  // waits, with the Retry-After recorded below.
  (acme.axios.defaults as unknown as { acmeSettings: { retryMaxAttempts: number } }).acmeSettings.retryMaxAttempts = 0;
  acme.axios.defaults.maxContentLength = maxCaAnswerBytes;
  acme.axios.interceptors.request.use((config) => {
    const context = calls.getStore();
    if (context !== undefined) {
      config.httpsAgent = context.agent;
      config.timeout = context.timeoutMs;
    }
    return config;
  });
  acme.axios.interceptors.response.use(undefined, (error: unknown) => {
    const context = calls.getStore();
    const { response, code, message, config } = error as {
      response?: { status: number; headers: Record<string, unknown> };
      code?: string;
      message?: string;
      config?: { url?: string; method?: string };
    };
    if (response === undefined) {
      // No answer at all (refused, TLS failure, timeout). acme-client's own handler would fail on the
      // missing response with a TypeError that hides the cause; an error without `config` passes it untouched.
      const origin = config?.url === undefined ? 'the CA' : new URL(config.url).origin;
      // axios ends the read at maxContentLength with an error of its own that has no response.
      if (message?.startsWith('maxContentLength') === true) throw new Error(`the answer from ${origin} is larger than ${maxCaAnswerBytes} bytes`);
      throw new Error(`cannot reach ${origin}: ${[code, message].filter(Boolean).join(' ')}`);
    }
    const header = response.headers['retry-after'];
    if (context !== undefined && response.status >= 400 && typeof header === 'string') {
      const delayMs = retryAfterMs(header);
      if (delayMs !== undefined) context.state.retryAfterSeconds = Math.ceil(delayMs / 1000);
    }
    const problem = (response as { data?: { type?: unknown; detail?: unknown; instance?: unknown } }).data;
    if (context !== undefined && response.status >= 400 && typeof problem?.type === 'string') {
      context.state.problemType = problem.type;
      context.state.problemDetail = typeof problem.detail === 'string' ? problem.detail : undefined;
      context.state.problemInstance = typeof problem.instance === 'string' ? problem.instance : undefined;
    }
    // The nonce of a successful POST is unused; acme-client itself uses those of HEAD newNonce and of a badNonce refusal.
    const nonce = response.headers['replay-nonce'];
    if (context !== undefined && config?.method === 'post' && response.status < 400 && typeof nonce === 'string') {
      context.nonces.push(nonce);
      if (context.nonces.length > maxKeptNonces) context.nonces.shift();
    }
    throw error;
  });
  // Every answer reaches acme-client's interceptor as a rejection (it makes validateStatus refuse all);
  // this one must see them first. axios documents `handlers` as public and replaceable.
  const manager = acme.axios.interceptors.response as unknown as { handlers: unknown[] };
  manager.handlers = [manager.handlers[manager.handlers.length - 1], ...manager.handlers.slice(0, -1)];
}

export class CaConnection {
  private readonly agent: Agent;
  private readonly nonces: string[] = [];

  /**
   * `extraCaPem`: a CA trusted for the CA's HTTPS besides the system's roots (`acme.ca_bundle`).
   * `timeoutMs`: the most one request may take (caRequestTimeoutMs unless a test says otherwise).
   */
  constructor(
    extraCaPem?: string,
    private readonly timeoutMs = caRequestTimeoutMs,
  ) {
    installInterceptors();
    this.agent = new Agent({ keepAlive: true, ...(extraCaPem === undefined ? {} : { secureContext: secureContextTrusting(extraCaPem) }) });
  }

  /** Runs `operation`, every CA request it makes going through this connection; `state` collects what the CA said. */
  run<T>(operation: (state: CaCallState) => Promise<T>): Promise<T> {
    const state: CaCallState = {};
    return calls.run({ agent: this.agent, timeoutMs: this.timeoutMs, state, nonces: this.nonces }, () => operation(state));
  }

  /**
   * acme-client asks the CA for a fresh nonce (HEAD newNonce) before every request, although every
   * answer carries one (RFC 8555 7.2): the nonces of earlier answers are used first, which halves the
   * round trips of an order. Left as it is if acme-client's internals are not the ones known (5.x).
   */
  reuseAnswerNonces(client: Client): void {
    const http = (client as unknown as { http?: { getNonce?: unknown } }).http;
    if (http === undefined || typeof http.getNonce !== 'function') return;
    const askCa = (http.getNonce as () => Promise<string>).bind(http);
    http.getNonce = () => {
      const nonce = this.nonces.pop();
      return nonce === undefined ? askCa() : Promise.resolve(nonce);
    };
  }

  close(): void {
    this.agent.destroy();
  }
}
