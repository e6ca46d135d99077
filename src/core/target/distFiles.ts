import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A file Hotpath builds into dist/ (a preload that runs inside the user's process): next to the running
 * bundle (dist/*.js), or in dist/ when running from sources under tsx (tests).
 */
export function distFile(fileName: string, what: string): string {
  const candidates = [path.join(__dirname, fileName), path.resolve(__dirname, '../../../dist', fileName)];
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`Hotpath's ${what} is missing (looked in ${candidates.join(', ')}); run \`npm run build\`.`);
  return found;
}
