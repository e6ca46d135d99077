'use strict';
// Browser-test app for the XSS test: the profiled function's name is markup (a string-literal method
// name is what V8 reports), and the test copies this file under a directory whose path holds a script tag.
const evil = {
  '<img src=x onerror="window.__pwned=1">'() {
    let acc = 0;
    for (let i = 0; i < 2e6; i++) acc = (acc + i * i) % 1000003;
    return acc;
  },
};

const until = Date.now() + 600;
let sink = 0;
while (Date.now() < until) sink += evil['<img src=x onerror="window.__pwned=1">']();
if (sink === -1) console.log(sink);
