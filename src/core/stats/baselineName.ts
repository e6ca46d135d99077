import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { invalidOption } from '../common/errors';

const MAX_NAME = 64;
const MAX_COMMAND_SLUG = 40;
/** Names Windows refuses as file names whatever the extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/;

/**
 * A user-chosen baseline name as a safe, portable file name: lower case (case-insensitive file systems
 * would otherwise merge 'Api' and 'api' silently), letters, digits, '.', '_' and '-' only, no leading
 * dot, at most 64 characters. `load('Main API')` and `save({ name: 'main-api' })` meet on the same file.
 */
export function sanitizeBaselineName(name: string): string {
  let slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // é → e
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '');
  if (slug.length > MAX_NAME) slug = slug.slice(0, MAX_NAME).replace(/[-._]+$/, '');
  if (slug === '') throw invalidOption(`--name must contain at least one letter or digit (got '${name}').`);
  return WINDOWS_RESERVED.test(slug) ? `${slug}_` : slug;
}

const slugify = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

/**
 * A short, stable default name for the command being measured: `node app.js` → 'node-app-js',
 * `npm start` → 'npm-start'. The program's directory and absolute paths are reduced to their last
 * part so the same command gets the same name on every machine; a long command keeps a readable
 * prefix plus a hash of the whole command, so two long commands that share a prefix do not collide.
 */
export function baselineNameFromCommand(command: readonly string[]): string {
  const parts = command.map((arg, i) => {
    if (i === 0) return path.basename(arg).replace(/\.(exe|cmd|bat)$/i, '');
    if (path.isAbsolute(arg)) return path.basename(arg);
    return arg.replace(/^\.[\\/]/, '');
  });
  const slug = slugify(parts.join(' '));
  if (slug === '') return 'baseline';
  if (slug.length <= MAX_COMMAND_SLUG) return slug;
  const hash = createHash('sha1').update(command.join('\0')).digest('hex').slice(0, 6);
  return `${slug.slice(0, MAX_COMMAND_SLUG - 7).replace(/-+$/, '')}-${hash}`;
}
