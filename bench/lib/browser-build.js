'use strict';
// One standalone-report build in a fresh process, exactly as `hotpath report --html` builds it:
// loadProfile (source maps on) → flame payload → HTML file. Prints { ms, maxRssMB, htmlMB }.
//   node browser-build.js <profile> <out.html> <bundle of src/cli/htmlReport.ts>
const fs = require('node:fs');

async function main() {
  const [file, out, bundle] = process.argv.slice(2);
  const lib = require(bundle);
  const t0 = performance.now();
  await lib.writeFlameReportFromFile(file, out);
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, htmlMB: fs.statSync(out).size / 1048576 })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
