// GET /api/version, the same on every site: the product, the package version, the
// site's API version and the commit the build was made from (absent outside git), so a fleet's
// versions can be read over HTTP as `--version` prints them.
import { commit, version } from '../version.js';
import { jsonType } from './reply.js';
import type { Router } from './router.js';

/** The answer of GET /api/version. */
export interface VersionAnswer {
  product: string;
  version: string;
  /** The version of the site's HTTP API: raised when a route or a field changes incompatibly. */
  api_version: number;
  /** The git commit built from (`-dirty` appended when the tree had changes); absent when not built from git. */
  commit?: string;
}

export function versionAnswer(product: string, apiVersion: number): VersionAnswer {
  return { product, version, api_version: apiVersion, ...(commit === undefined ? {} : { commit }) };
}

export function mountVersionRoute(router: Router, product: string, apiVersion: number): void {
  const body = JSON.stringify(versionAnswer(product, apiVersion));
  router.get('/api/version', (_request, reply) => reply.send(200, body, { 'Content-Type': jsonType }));
}

/**
 * The path of GET /api/version for a site's /api/spec; valid in OpenAPI 3.0 and 3.1 alike (no
 * `const`: certhub's document is 3.0). `operation` adds what a document gives every operation (tags).
 */
export function versionPath(product: string, operation: object = {}) {
  return {
    '/api/version': {
      get: {
        operationId: 'version',
        ...operation,
        summary: 'Product, running version, API version and the commit the build was made from',
        responses: {
          '200': {
            description: 'the versions',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['product', 'version', 'api_version'],
                  properties: {
                    product: { type: 'string', enum: [product] },
                    version: { type: 'string' },
                    api_version: { type: 'integer' },
                    commit: {
                      type: 'string',
                      description: 'the git commit built from, `-dirty` appended when the tree had changes; absent when not built from git',
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
