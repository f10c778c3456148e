import { SiteError } from './errors.js';
import { escapeHtml } from './escape.js';

// A template language of four forms:
//   {{name}} / {{page.title}}   the value, escaped
//   {{{name}}}                  the value as is (HTML)
//   {{#each list}}…{{/each}}    the block once per item; inside, {{.}} or
//                               {{this.x}} is the item
//   {{#if name}}…{{else}}…{{/if}}
// A missing value renders as nothing.

export function compile(source, name = 'template') {
  const tokens = tokenize(source, name);
  const [nodes, rest] = parse(tokens, 0, null, name);
  if (rest !== tokens.length) throw new SiteError(`unexpected {{/${tokens[rest].arg}}}`, { file: name });
  return (data) => renderNodes(nodes, [data]);
}

export function render(source, data, name) {
  return compile(source, name)(data);
}

function tokenize(source, name) {
  const out = [];
  const re = /\{\{\{\s*([^}]+?)\s*\}\}\}|\{\{\s*([#/]?)(\w+)?\s*([^}]*?)\s*\}\}/g;
  let last = 0;
  let m;
  while ((m = re.exec(source))) {
    if (m.index > last) out.push({ kind: 'text', text: source.slice(last, m.index) });
    if (m[1] !== undefined) out.push({ kind: 'raw', arg: m[1] });
    else if (m[2] === '#') out.push({ kind: 'open', word: m[3], arg: m[4] });
    else if (m[2] === '/') out.push({ kind: 'close', word: m[3], arg: m[3] });
    else if (m[3] === 'else' && m[4] === '') out.push({ kind: 'else' });
    else out.push({ kind: 'var', arg: ((m[3] ?? '') + (m[4] ? m[4] : '')).trim() });
    last = re.lastIndex;
  }
  if (last < source.length) out.push({ kind: 'text', text: source.slice(last) });
  for (const t of out) {
    if (t.kind === 'open' && t.word !== 'each' && t.word !== 'if') {
      throw new SiteError(`unknown block {{#${t.word}}}`, { file: name });
    }
  }
  return out;
}

function parse(tokens, i, closing, name) {
  const nodes = [];
  while (i < tokens.length) {
    const t = tokens[i];
    if (t.kind === 'close') {
      if (t.word !== closing) throw new SiteError(`{{/${t.word}}} closes {{#${closing ?? 'nothing'}}}`, { file: name });
      return [nodes, i];
    }
    if (t.kind === 'else' && (closing === 'if' || closing === 'each')) return [nodes, i];
    if (t.kind === 'open') {
      const [body, j] = parse(tokens, i + 1, t.word, name);
      let alt = [];
      let k = j;
      if (k < tokens.length && tokens[k].kind === 'else') [alt, k] = parse(tokens, k + 1, t.word, name);
      if (k >= tokens.length) throw new SiteError(`{{#${t.word}}} is not closed`, { file: name });
      nodes.push({ kind: t.word, arg: t.arg, body, alt });
      i = k + 1;
      continue;
    }
    nodes.push(t);
    i++;
  }
  if (closing) throw new SiteError(`{{#${closing}}} is not closed`, { file: name });
  return [nodes, i];
}

function lookup(path, scopes) {
  if (path === '.' || path === 'this') return scopes[scopes.length - 1];
  const parts = path.replace(/^this\./, '').split('.');
  const start = path.startsWith('this.') ? [scopes[scopes.length - 1]] : [...scopes].reverse();
  for (const scope of start) {
    if (scope != null && typeof scope === 'object' && parts[0] in scope) {
      return parts.reduce((v, p) => (v == null ? undefined : v[p]), scope);
    }
  }
  return undefined;
}

function renderNodes(nodes, scopes) {
  let out = '';
  for (const n of nodes) {
    switch (n.kind) {
      case 'text':
        out += n.text;
        break;
      case 'var': {
        const v = lookup(n.arg, scopes);
        out += v == null ? '' : escapeHtml(v);
        break;
      }
      case 'raw': {
        const v = lookup(n.arg, scopes);
        out += v == null ? '' : String(v);
        break;
      }
      case 'each': {
        const list = lookup(n.arg, scopes);
        if (Array.isArray(list) && list.length > 0) {
          for (const item of list) out += renderNodes(n.body, [...scopes, item]);
        } else {
          out += renderNodes(n.alt, scopes);
        }
        break;
      }
      case 'if': {
        const v = lookup(n.arg, scopes);
        const truthy = Array.isArray(v) ? v.length > 0 : Boolean(v);
        out += renderNodes(truthy ? n.body : n.alt, scopes);
        break;
      }
    }
  }
  return out;
}
