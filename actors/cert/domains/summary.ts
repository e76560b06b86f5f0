// A domain as the admin event stream and the panel's list carry it (DomainSummary): shared by the
// front that sends it and the page that keeps it, so both hold the same fields and no token.
import { noDeployment, type Deployment } from '../hosts/deployment.js';
import type { DomainSummary, DomainView } from './protocol.js';

export function summaryOf({ name, label, status, error, expires_at, issued_by }: DomainView, deployment: Deployment = noDeployment): DomainSummary {
  return { name, label, status, error, expires_at, issued_by, deployment };
}
