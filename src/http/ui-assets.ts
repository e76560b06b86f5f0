import { fileURLToPath } from 'node:url';
import { loadStaticAssets, type StaticAsset } from './static.js';

/** The built page of a role, its folder's name under actors/: dist/ui/<role>/ (this file runs as dist/src/http/ui-assets.js). */
export async function roleUiAssets(role: string): Promise<Map<string, StaticAsset>> {
  const dir = fileURLToPath(new URL(`../../ui/${role}/`, import.meta.url));
  let assets: Map<string, StaticAsset>;
  try {
    assets = await loadStaticAssets(dir);
  } catch (error) {
    throw new Error(`the ${role} page is missing from ${dir} (run npm run build): ${(error as Error).message}`);
  }
  // A folder without the page (the sources, a half-done build) would serve everything but the page.
  if (!assets.has('/index.html')) throw new Error(`the ${role} page is missing from ${dir}: no index.html (run npm run build)`);
  return assets;
}
