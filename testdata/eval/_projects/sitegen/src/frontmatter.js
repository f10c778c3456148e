import { SiteError } from './errors.js';
import { parseValue } from './yamlish.js';

// splitFrontMatter separates the "---" block at the top of a page from its
// body: { data, body, bodyLine } (bodyLine: where the body starts, from 1).
export function splitFrontMatter(text, file) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[0] !== '---') return { data: {}, body: text, bodyLine: 1 };
  const end = lines.indexOf('---', 1);
  if (end < 0) throw new SiteError('front matter is not closed with ---', { file, line: 1 });
  const data = {};
  for (let i = 1; i < end; i++) {
    const line = lines[i];
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SiteError(`want key: value, got ${JSON.stringify(line)}`, { file, line: i + 1 });
    data[line.slice(0, colon).trim()] = parseValue(line.slice(colon + 1));
  }
  return { data, body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 };
}
