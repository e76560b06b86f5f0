// Static files for the browser pages: read once at start (the bundles are small), served from memory
// with their content type, an ETag, a cache policy that lets browsers keep hashed files forever, and
// the security headers of security-headers.ts (pages get the content security policy). HEAD is
// answered like GET, without the body.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { contentTypeFor } from './mime.js';
import type { Router } from './router.js';
import { fileSecurityHeaders, pageSecurityHeaders } from './security-headers.js';

export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
  cacheControl: string;
}

// esbuild names bundles `[name]-[hash]`: eight characters of upper-case base32.
const hashedName = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

/** Every file under `dir`, keyed by its URL path (`/app-X1Y2Z3W4.js`). */
export async function loadStaticAssets(dir: string): Promise<Map<string, StaticAsset>> {
  const assets = new Map<string, StaticAsset>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const body = await readFile(file);
    const urlPath = `/${relative(dir, file).split(sep).join('/')}`;
    assets.set(urlPath, {
      body,
      contentType: contentTypeFor(file),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: hashedName.test(entry.name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return assets;
}

/** Serves the assets under `mountPath` (GET and HEAD); `index.html` also answers the mount path itself. */
export function serveStatic(router: Router, assets: ReadonlyMap<string, StaticAsset>, mountPath = '/'): void {
  const base = mountPath.endsWith('/') ? mountPath.slice(0, -1) : mountPath;
  for (const [urlPath, asset] of assets) {
    const paths = urlPath === '/index.html' ? [`${base}/`, `${base}${urlPath}`] : [`${base}${urlPath}`];
    const securityHeaders = asset.contentType.startsWith('text/html') ? pageSecurityHeaders : fileSecurityHeaders;
    const headers = { 'Content-Type': asset.contentType, ETag: asset.etag, 'Cache-Control': asset.cacheControl, ...securityHeaders };
    for (const path of new Set(paths)) {
      router.get(path, (request, reply) => {
        if (request.headers.get('if-none-match') === asset.etag) reply.send(304, '', headers);
        else reply.send(200, asset.body, headers);
      });
    }
  }
}
