// What certhub's page (ui/) shares with the cert role: the shapes of the admin API's answers,
// and the pure code the page runs as the server does (the words of a refused input, a domain's summary).
export type { DomainDetail, DomainSummary, DomainView, ListedDomain } from './domains/protocol.js';
export { deploymentWords, type Deployment, type HostProblem, type HostView, type ProbeResult } from './hosts/deployment.js';
export type { Prefs } from './domains/prefs-schema.js';
export { hostTokenHostProblem, type HostTokenView, type IssuedHostToken } from './hosts/host-tokens.js';
export type { CerthubCaInfo, CerthubServerInfo, CerthubSessionAnswer } from './site/protocol.js';
export { auditActions, type AuditEntry } from './audit/entry.js';
export type { AuditPage } from './audit/protocol.js';
export { missingName, missingTarget, urlTargetProblem } from './domains/input-words.js';
export { summaryOf } from './domains/summary.js';
export { revocationReasonNames } from './acme/revocation-reasons.js';
export { caNameOf } from './acme/named-directories.js';
