// What a page shares with the proxy role: the config files certhub-agent reads, which certhub's page
// (actors/cert/ui/) writes for a user to download.
export type { FetchManyExport, FetchOneExport, ProxyRoutesExport } from './agent-exports.js';
