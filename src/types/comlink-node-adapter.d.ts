// comlink ships this adapter as ESM without a matching .d.mts; its CommonJS typing does not describe
// the ESM default export.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';

  export interface NodeEndpoint {
    postMessage(message: unknown, transfer?: readonly unknown[]): void;
    on(type: 'message', listener: (data: unknown) => void): unknown;
    off(type: 'message', listener: (data: unknown) => void): unknown;
    start?: () => void;
  }

  export default function nodeEndpoint(endpoint: NodeEndpoint): Endpoint;
}
