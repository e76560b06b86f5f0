import { declareActor } from '../../../src/actor/kind.js';
import type { AuditApi, AuditConfig } from './protocol.js';

export const auditActor = declareActor<AuditApi, AuditConfig>('audit', new URL('./index.js', import.meta.url));
