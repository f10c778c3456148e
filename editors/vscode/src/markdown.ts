// A small Markdown renderer for the conversation panel: headings, fenced
// code, inline code, bold, italics, links (shown, not followed), lists and
// paragraphs. Everything is HTML-escaped first, so model text can never
// inject markup into the webview. No vscode import.

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function inline(s: string): string {
  // Code spans first: their content is not formatted further.
  const parts = s.split(/(`[^`]+`)/g);
  return parts
    .map((p) => {
      if (/^`[^`]+`$/.test(p)) return `<code>${escapeHtml(p.slice(1, -1))}</code>`;
      let h = escapeHtml(p);
      h = h.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      h = h.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
      h = h.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<span class="link" title="$2">$1</span>');
      return h;
    })
    .join('');
}

export function renderMarkdown(md: string): string {
  const out: string[] = [];
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  let para: string[] = [];
  let list: 'ul' | 'ol' | undefined;
  const flushPara = () => {
    if (para.length > 0) out.push(`<p>${para.map(inline).join('<br>')}</p>`);
    para = [];
  };
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const fence = /^```\s*([\w+-]*)\s*$/.exec(l);
    if (fence) {
      flushPara();
      closeList();
      const code: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) code.push(lines[i]);
      out.push(`<pre><code${fence[1] ? ` class="lang-${escapeHtml(fence[1])}"` : ''}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(l);
    const ul = /^\s*[-*+]\s+(.*)$/.exec(l);
    const ol = /^\s*\d+[.)]\s+(.*)$/.exec(l);
    if (h) {
      flushPara();
      closeList();
      out.push(`<h${h[1].length}>${inline(h[2])}</h${h[1].length}>`);
    } else if (ul || ol) {
      flushPara();
      const kind = ul ? 'ul' : 'ol';
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline((ul ?? ol)![1])}</li>`);
    } else if (l.trim() === '') {
      flushPara();
      closeList();
    } else {
      closeList();
      para.push(l);
    }
  }
  flushPara();
  closeList();
  return out.join('\n');
}
