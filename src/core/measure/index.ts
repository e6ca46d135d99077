/** One measured run of a command, as a comparison needs it: wall time, CPU time of its processes. */
export { measureScriptRun, checkNodeVersion, type RunnableSide, type ScriptRun } from './scriptRun';
export { processCpuMs, parsePsTime } from './processCpu';
export { markCpu, otherCpuCores, type CpuMark } from './otherCpu';
