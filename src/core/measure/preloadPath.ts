import * as fs from 'node:fs';
import * as path from 'node:path';

/** dist/hotpath-timing-preload.js next to the running bundle, or from the sources' dist/ (tests under tsx). */
export function timingPreloadPath(): string {
  const candidates = [path.join(__dirname, 'hotpath-timing-preload.js'), path.resolve(__dirname, '../../../dist/hotpath-timing-preload.js')];
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`Hotpath's timing preload is missing (looked in ${candidates.join(', ')}); run \`npm run build\`.`);
  return found;
}
