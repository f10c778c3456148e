// parseBlocks splits Markdown into blocks: headings, paragraphs, lists,
// fenced code, quotes and rules. Each block is { type, ... }.

export function parseBlocks(text) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const blocks = [];
  let para = [];
  const flush = () => {
    if (para.length) blocks.push({ type: 'paragraph', text: para.join(' ') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if (line.trim() === '') {
      flush();
    } else if (line.startsWith('```')) {
      flush();
      const lang = line.slice(3).trim();
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      blocks.push({ type: 'code', lang, text: code.join('\n') });
    } else if ((m = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line))) {
      flush();
      blocks.push({ type: 'heading', level: m[1].length, text: m[2] });
    } else if (/^(-{3,}|\*{3,})$/.test(line.trim())) {
      flush();
      blocks.push({ type: 'rule' });
    } else if ((m = /^>\s?(.*)$/.exec(line))) {
      flush();
      const last = blocks[blocks.length - 1];
      if (last && last.type === 'quote') last.text += ' ' + m[1];
      else blocks.push({ type: 'quote', text: m[1] });
    } else if ((m = /^([-*]|\d+\.)\s+(.*)$/.exec(line))) {
      flush();
      const ordered = /\d/.test(m[1]);
      const last = blocks[blocks.length - 1];
      if (last && last.type === 'list' && last.ordered === ordered) {
        last.items.push(m[2]);
      } else {
        blocks.push({ type: 'list', ordered, start: ordered ? parseInt(m[1], 10) : 1, items: [m[2]] });
      }
    } else {
      para.push(line.trim());
    }
  }
  flush();
  return blocks;
}
