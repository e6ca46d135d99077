/** Reads a JSON load file (`--load-file`): a regular file of at most 1 MB, its routes validated. */
import { FileRefused, readBoundedFile } from '../common/boundedRead';
import { ErrorCode, HotpathError, errorMessage } from '../common/errors';
import { HTTP_METHODS } from './options';
import { parseLoadFile, type RouteSpec } from './routes';

const MAX_BYTES = 1024 * 1024;

export async function readLoadFile(file: string): Promise<RouteSpec[]> {
  let text: string;
  try {
    text = (await readBoundedFile(file, { maxBytes: MAX_BYTES, timeoutMs: 5000 })).toString('utf8');
  } catch (err) {
    const why = err instanceof FileRefused ? err.reason : (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : errorMessage(err);
    throw new HotpathError(ErrorCode.InvalidOption, `Could not read the load file ${file}: ${why}.`, { option: 'routes', flag: '--load-file' });
  }
  return parseLoadFile(text, file, HTTP_METHODS);
}
