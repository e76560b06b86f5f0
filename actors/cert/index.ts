// The cert role (certhub): what the rest of outpost may use of it. certhub-agent reads the answer
// of GET /api/cert/<domain> with the same type the server writes it with.
export { certRole } from './role.js';
export type { CertificateResponse, CsrAnswer, CsrRequest } from './site/protocol.js';
export { demoMaterial, type DemoMaterial } from './demo-material.js';
export { hostReportSchema, type HostReport } from './hosts/report.js';
