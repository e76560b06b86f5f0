// Rate limits per client or per key: a token bucket per key, holding `limit` tokens and refilled
// evenly over `windowMs` (so `limit` requests may come at once, then one per windowMs/limit). Memory
// is bounded: past `maxKeys` the key touched longest ago is forgotten, which only ever gives that
// key a full bucket again. A limit on failures also remembers which keys succeeded within the last
// window (admission.ts lets those keep having their credentials checked), bounded the same way.
import { isIP } from 'node:net';
import { HttpRefusal } from './refusal.js';
import type { RequestInfo } from './request.js';

export interface RateLimiterOptions {
  /** Requests a key may make at once, and over each window. */
  limit: number;
  windowMs: number;
  /** Keys remembered at most; 10,000 by default. */
  maxKeys?: number;
  /** Milliseconds now; tests pass a fake clock. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** Whether the key's spell out of allowance was reported; cleared once its bucket is full again. */
  reported?: boolean;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  /** When each key last succeeded, least recent first. */
  private readonly successes = new Map<string, number>();
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(private readonly options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('a rate limit allows at least one request');
    if (!(options.windowMs > 0)) throw new RangeError('a rate limit window must be longer than 0 ms');
    this.perMs = options.limit / options.windowMs;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Keys remembered now. */
  get size(): number {
    return this.buckets.size;
  }

  /** Seconds (whole, at least 1) until `key` may make a request; 0 when it may now. Takes nothing. */
  retryAfter(key: string): number {
    const bucket = this.refilled(key);
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  /** Takes one request from `key`'s allowance: 0 when it was there, else the seconds to wait (nothing taken). */
  take(key: string): number {
    const wait = this.retryAfter(key);
    if (wait === 0) this.touch(key).tokens -= 1;
    return wait;
  }

  /** Gives back a request taken by `take` (one whose outcome turned out not to count). */
  refund(key: string): void {
    if (!this.buckets.has(key)) return;
    const bucket = this.refilled(key);
    bucket.tokens = Math.min(this.options.limit, bucket.tokens + 1);
  }

  /** Notes that `key` succeeded now (gave a right credential). */
  succeeded(key: string): void {
    this.successes.delete(key);
    this.successes.set(key, this.now());
    if (this.successes.size > this.maxKeys) {
      const oldest = this.successes.keys().next();
      if (oldest.done !== true) this.successes.delete(oldest.value);
    }
  }

  /** Whether `key` succeeded within the last window. */
  succeededRecently(key: string): boolean {
    const at = this.successes.get(key);
    return at !== undefined && this.now() - at <= this.options.windowMs;
  }

  /**
   * True the first time `key` is found out of allowance in a spell: once per spell, which ends when a
   * whole window passes without its allowance being used, so a client that keeps knocking is reported
   * once, not at each knock.
   */
  firstTimeOut(key: string): boolean {
    if (this.retryAfter(key) === 0) return false;
    const bucket = this.buckets.get(key);
    if (bucket === undefined || bucket.reported === true) return false;
    bucket.reported = true;
    return true;
  }

  /**
   * The key's bucket, refilled up to now. A remembered key becomes the most recently used (a client
   * that keeps knocking stays remembered); an unknown one gets a full bucket that is not stored.
   */
  private refilled(key: string): Bucket {
    const now = this.now();
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return { tokens: this.options.limit, at: now };
    // Multiplied before divided: a whole window then gives back exactly `limit`, not a hair less.
    bucket.tokens = Math.min(this.options.limit, bucket.tokens + ((now - bucket.at) * this.options.limit) / this.options.windowMs);
    bucket.at = now;
    if (bucket.tokens === this.options.limit) bucket.reported = false;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    return bucket;
  }

  /** The key's bucket, stored; the least recently used key goes past maxKeys. */
  private touch(key: string): Bucket {
    const bucket = this.refilled(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next();
      if (oldest.done !== true) this.buckets.delete(oldest.value);
    }
    return bucket;
  }
}

/** How a route or group is rate limited. */
export interface RateLimitRule {
  limiter: RateLimiter;
  /** What is counted against; the client's address by default (see `clientAddressKey`). */
  key?: (request: RequestInfo<unknown, unknown>) => string;
  /**
   * `requests` (the default): every request takes from the allowance. `failures`: only answers 401
   * and 403 do (wrong passwords, wrong tokens): a request answered later holds one while it is
   * answered and any other answer gives it back, so guesses sent all at once cannot slip past the
   * count. A client with none left is refused (429) before its credentials are checked, unless it
   * succeeded within the window (admission.ts).
   */
  count?: 'requests' | 'failures';
  /**
   * For a `failures` rule: true for a refused request that is no guess (a token the site knows it
   * retired), which then takes nothing from the allowance.
   */
  notAGuess?: (request: RequestInfo<unknown, unknown>) => boolean;
  /** Told once per spell when a client of a `failures` rule is first found out of allowance (to log it once). */
  onExhausted?: (request: RequestInfo<unknown, unknown>, retryAfterSeconds: number) => void;
}

/**
 * A client's address as a rate-limit key: IPv4 as itself (uWS shows it IPv4-mapped on a dual-stack
 * socket), IPv6 by its /64, since one host commonly holds a whole /64.
 */
export function clientAddressKey(request: Pick<RequestInfo<unknown, unknown>, 'remoteAddress'>): string {
  return addressKey(request.remoteAddress);
}

export function addressKey(address: string): string {
  const plain = unmapped(address);
  if (!plain.includes(':')) return plain;
  return `${expandedIpv6(plain).split(':').slice(0, 4).join(':')}::/64`;
}

/** IPv4 as itself when shown IPv4-mapped (`::ffff:a.b.c.d` or uWS's hexadecimal form), else the text given. */
function unmapped(address: string): string {
  const hex = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex !== null) {
    const high = parseInt(hex[1] ?? '0', 16);
    const low = parseInt(hex[2] ?? '0', 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  const dotted = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return dotted?.[1] ?? address;
}

/** Eight groups of four hexadecimal digits, lower case: one text per IPv6 address, however it was written. */
function expandedIpv6(address: string): string {
  const [head = '', tail] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups].map((group) => group.padStart(4, '0')).join(':');
}

/** One text per IP address (IPv4 unmapped, IPv6 in eight full groups), to compare addresses written differently. */
export function canonicalAddress(address: string): string {
  const plain = unmapped(address);
  return plain.includes(':') ? expandedIpv6(plain) : plain;
}

/**
 * Who sent a request: its peer, or, when the peer is one of `trustedProxies` (canonical addresses), the
 * nearest address in its `X-Forwarded-For` that is not a trusted proxy. Read from the right: each proxy
 * appends the address it received from, and whatever stands left of the first untrusted hop may be forged.
 */
export function forwardedClient(request: Pick<RequestInfo<unknown, unknown>, 'remoteAddress' | 'headers'>, trustedProxies: ReadonlySet<string>): string {
  const peer = canonicalAddress(request.remoteAddress);
  if (!trustedProxies.has(peer)) return peer;
  const hops = (request.headers.get('x-forwarded-for') ?? '').split(',').map((hop) => hop.trim());
  for (let index = hops.length - 1; index >= 0; index--) {
    // Checked before canonicalAddress, which takes IP addresses only.
    const text = hops[index] ?? '';
    if (isIP(text) === 0) return peer;
    const hop = canonicalAddress(text);
    if (!trustedProxies.has(hop)) return hop;
  }
  return peer;
}

/** The 429 for a request over its allowance, with `Retry-After` in whole seconds. */
export function rateLimited(retryAfterSeconds: number): HttpRefusal {
  return new HttpRefusal('ERR_RATE_LIMITED', `too many requests; retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
}
