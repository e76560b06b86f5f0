import { fileURLToPath } from 'node:url';
import { loadStaticAssets, type StaticAsset } from './static.js';

/** The built page of a role: dist/ui/<role>/ (this file runs as dist/src/http/ui-assets.js). */
export async function roleUiAssets(role: string): Promise<Map<string, StaticAsset>> {
  const dir = fileURLToPath(new URL(`../../../ui/${role}/`, import.meta.url));
  try {
    return await loadStaticAssets(dir);
  } catch (error) {
    throw new Error(`the ${role} page is missing from ${dir} (run npm run build): ${(error as Error).message}`);
  }
}
