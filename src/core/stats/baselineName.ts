import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { invalidOption } from '../common/errors';

const MAX_NAME = 64;
const MAX_COMMAND_SLUG = 40;
/** Hex digits of the hash a name cut to MAX_NAME keeps of the whole name. */
const NAME_HASH = 8;
/** Names Windows refuses as file names whatever the extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/;

const shortHash = (text: string, digits: number) => createHash('sha1').update(text).digest('hex').slice(0, digits);

/**
 * The one helper that turns a user-chosen name into a file name, for every store: baselines, leak
 * checks, bench results (`--name`, `--save`, `--baseline`, VS Code target names) and the stem of saved
 * profiles — so a store path is safe by construction, whatever the name. Lower case (case-insensitive
 * file systems would otherwise merge 'Api' and 'api' silently), letters, digits, '.', '_' and '-' only
 * (a '/' or '..' becomes '-': never a directory), no leading dot, at most 64 characters; a longer name
 * keeps its first 55 and a hash of the whole, so `…-staging` and `…-production` do not share a file.
 * `load('Main API')` and `save({ name: 'main-api' })` meet on the same file.
 */
export function sanitizeBaselineName(name: string, flag = '--name'): string {
  let slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // é → e
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '');
  if (slug.length > MAX_NAME) slug = `${slug.slice(0, MAX_NAME - NAME_HASH - 1).replace(/[-._]+$/, '')}-${shortHash(slug, NAME_HASH)}`;
  if (slug === '') throw invalidOption(`${flag} must contain at least one letter or digit (got '${name}').`);
  return WINDOWS_RESERVED.test(slug) ? `${slug}_` : slug;
}

/** The file-name stem of a saved profile or heap profile: the name made safe, or 'profile' when nothing of it is left. */
export function profileStem(name: string): string {
  try { return sanitizeBaselineName(name); } catch { return 'profile'; }
}

/**
 * A name from the command line, checked before anything runs: a name is not a path (a '/' would
 * otherwise become part of the file name, or a directory that does not exist after the whole run), and
 * it must keep a letter or digit. Returns the name as given (stores make it a file name).
 */
export function checkedName(name: string, flag: string): string {
  if (/[\\/]/.test(name)) {
    throw invalidOption(`${flag} takes a name, not a path (got '${name}'): use letters, digits, '.', '_' and '-'${flag === '--name' ? '; --out chooses the directory profiles go to' : ''}.`);
  }
  sanitizeBaselineName(name, flag);
  return name;
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
  const hash = shortHash(command.join('\0'), 6);
  return `${slug.slice(0, MAX_COMMAND_SLUG - 7).replace(/-+$/, '')}-${hash}`;
}
