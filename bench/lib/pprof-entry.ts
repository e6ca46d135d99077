// What the pprof benchmark measures, bundled by bench/suites/pprof.js (bench/lib/build.js).
export { loadProfile } from '../../src/core/profile';
export { decodePprof } from '../../src/core/pprof/decode';
export { gunzipBounded } from '../../src/core/pprof/gunzip';
export { exportPprof } from '../../src/core/pprof/export';
