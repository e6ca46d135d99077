/**
 * What started a stack that has no user code on it (dependency code run from a socket callback, a
 * timer, a promise job…): said in a Node developer's words, with the package that is driving it.
 */
import type { ProfileModel } from '../profile/types';

/** Node's internal frame names that tell what kind of callback started a stack. */
const ASYNC_KINDS: [RegExp, string][] = [
  [/^(run_main_module|executeUserEntryPoint|wrapModuleLoad|loadESM|runEntryPointWithESMLoader)$/, 'module loading at startup'],
  [/^(processTicksAndRejections|runMicrotasks|processPromiseRejections)$/, 'a promise or process.nextTick callback'],
  [/^(listOnTimeout|processTimers)$/, 'a timer callback'],
  [/^processImmediate$/, 'a setImmediate callback'],
  [/^(parserOnIncoming|parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|socketOnData)$/, 'an HTTP socket callback'],
  [/^(onStreamRead|readableAddChunk|addChunk|emit|Readable\.push|onread)$/, 'a socket callback'],
  [/^(oncomplete|onReadFileComplete|FSReqCallback)$/, 'a file-system callback'],
  [/^(afterWrite|onWriteComplete|afterWriteDispatched)$/, 'a write callback'],
];

/** "runs from a socket callback of `pg`": what started a stack that has no user frame. */
export function describeAsync(model: ProfileModel, coreFn: number, pkgFn: number): string {
  const core = coreFn >= 0 ? model.functions[coreFn] : undefined;
  let kind = 'Node\'s event loop';
  if (core) {
    const name = core.name;
    const url = core.url;
    const found = ASYNC_KINDS.find(([re]) => re.test(name));
    if (found) kind = found[1];
    else if (/modules\/|run_main/.test(url)) kind = 'module loading at startup';
    else if (/stream_base_commons|net|stream/.test(url)) kind = 'a socket callback';
    else if (/timers/.test(url)) kind = 'a timer callback';
    else if (/task_queues/.test(url)) kind = 'a promise or process.nextTick callback';
    else if (/_http_/.test(url)) kind = 'an HTTP socket callback';
  }
  const pkg = pkgFn >= 0 ? model.functions[pkgFn].package : null;
  return `runs from ${kind}${pkg ? ` of ${pkg}` : ''}`;
}
