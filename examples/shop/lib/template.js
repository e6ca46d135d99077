// A small template engine in the style of EJS/Pug: templates compile to JavaScript functions.
// Like Express's "view cache", compiled templates are cached only when NODE_ENV=production —
// in development every request re-reads and re-compiles the template.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const cacheEnabled = process.env.NODE_ENV === 'production';
const cache = new Map();

// Splits "<p>{{ name }}</p>{% for p in products %}…{% end %}" into text, output and block tokens,
// one character at a time (with escapes for quotes and newlines in the text parts).
function tokenize(source) {
  const tokens = [];
  let text = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === '{' && (next === '{' || next === '%')) {
      if (text) { tokens.push({ type: 'text', value: text }); text = ''; }
      const close = next === '{' ? '}}' : '%}';
      const end = source.indexOf(close, i + 2);
      tokens.push({ type: next === '{' ? 'output' : 'block', value: source.slice(i + 2, end).trim() });
      i = end + 2;
      continue;
    }
    if (ch === '\\' || ch === '`' || ch === '$') text += '\\' + ch;
    else if (ch === '\n') text += '\\n';
    else text += ch;
    i++;
  }
  if (text) tokens.push({ type: 'text', value: text });
  return tokens;
}

function generate(tokens) {
  let code = 'let out = "";\n';
  for (const token of tokens) {
    if (token.type === 'text') code += `out += \`${token.value}\`;\n`;
    else if (token.type === 'output') code += `out += escape(${token.value});\n`;
    else if (token.value.startsWith('for ')) {
      const [, item, list] = /^for (\w+) in (.+)$/.exec(token.value);
      code += `for (const ${item} of ${list}) {\n`;
    } else if (token.value.startsWith('if ')) code += `if (${token.value.slice(3)}) {\n`;
    else if (token.value === 'end') code += '}\n';
  }
  return code + 'return out;';
}

function compile(source) {
  const body = generate(tokenize(source));
  return new Function('data', 'escape', `with (data) { ${body} }`);
}

function escape(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(name, data) {
  let fn = cacheEnabled ? cache.get(name) : undefined;
  if (!fn) {
    const source = fs.readFileSync(path.join(__dirname, '..', 'views', `${name}.html`), 'utf8');
    fn = compile(source);
    if (cacheEnabled) cache.set(name, fn);
  }
  return fn(data, escape);
}

module.exports = { render, tokenize, compile };
