import { declareActor } from '../../../src/actor/kind.js';
import type { DnsApi, DnsConfig } from './protocol.js';

export const dnsActor = declareActor<DnsApi, DnsConfig>('dns', new URL('./index.js', import.meta.url));
