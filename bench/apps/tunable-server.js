'use strict';
// The calibration benchmark's app: every request does WORK units of CPU work (a fixed arithmetic loop,
// so a unit costs the same every time), then answers. A change of "k×" is WORK / k on one side.
const http = require('node:http');

const WORK = Number(process.env.WORK || 200000);

function work(n) {
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) x = (Math.imul(x ^ (x >>> 15), 0x85ebca6b) + i) | 0;
  return x;
}

const server = http.createServer((req, res) => {
  const value = work(WORK);
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(String(value));
});
server.listen(Number(process.env.PORT || 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
