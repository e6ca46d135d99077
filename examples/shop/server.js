// Example shop front page: GET / renders a product list through lib/template.js.
'use strict';
const http = require('node:http');
const { render } = require('./lib/template');

const products = Array.from({ length: 24 }, (_, i) => ({
  id: i + 1,
  name: `Product ${i + 1}`,
  price: (9.99 + i * 3.5).toFixed(2),
  inStock: i % 5 !== 0,
}));

const server = http.createServer((req, res) => {
  if (req.url === '/health') { res.end('ok'); return; }
  const html = render('products', { title: 'Hotpath Shop', products });
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
});

server.listen(Number(process.env.PORT || 3000), '127.0.0.1', () => {
  console.log(`shop listening on http://127.0.0.1:${server.address().port}/`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
