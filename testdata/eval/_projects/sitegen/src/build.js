import fs from 'node:fs';
import path from 'node:path';

import { archive } from './archive.js';
import { copyStatic } from './assets.js';
import { published } from './collection.js';
import { resolveConfig } from './config.js';
import { formatDate } from './dates.js';
import { rssFeed } from './feed.js';
import { markdownFiles, writeFile } from './files.js';
import { Layouts } from './layout.js';
import { makePage } from './page.js';
import { pagePath, paginate } from './paginate.js';
import { redirectPage, redirects } from './redirects.js';
import { relatedPages } from './related.js';
import { searchIndex } from './search.js';
import { sitemap } from './sitemap.js';
import { tagIndex } from './tags.js';
import { renderToc, tableOfContents } from './toc.js';

// build renders the site in root: pages, the paginated index, tag pages,
// the archive, redirects from old URLs, feed.xml, sitemap.xml and
// search.json into the output directory, then copies the static files.
// Returns what it wrote, as paths relative to the output.
export function build(root) {
  const configFile = path.join(root, 'site.json');
  const raw = fs.existsSync(configFile) ? JSON.parse(fs.readFileSync(configFile, 'utf8')) : {};
  const site = resolveConfig(raw, configFile);
  const contentDir = path.join(root, site.content);
  const layouts = new Layouts((name) => fs.readFileSync(path.join(root, site.layouts, `${name}.html`), 'utf8'));
  const all = markdownFiles(contentDir).map((f) => makePage(f, fs.readFileSync(path.join(contentDir, f), 'utf8')));
  const pages = site.drafts ? published(all.map((p) => ({ ...p, draft: false }))) : published(all);
  const out = path.join(root, site.output);
  const written = [];
  const emit = (rel, text) => {
    writeFile(path.join(out, rel), text);
    written.push(rel);
  };
  for (const p of pages) {
    const toc = renderToc(tableOfContents(p.body));
    const date = p.date ? formatDate(p.date, 'long') : '';
    emit(path.posix.join(p.url, 'index.html'), layouts.render('page', { site, page: p, toc, date, related: relatedPages(p, pages), content: p.html }));
  }
  for (const pg of paginate(pages, site.perPage)) {
    emit(path.posix.join(pagePath('/', pg.number), 'index.html'), layouts.render('list', { site, pages: pg.items, pager: pg }));
  }
  for (const t of tagIndex(pages)) {
    emit(`/tags/${t.slug}/index.html`, layouts.render('list', { site, pages: t.pages, tag: t.tag }));
  }
  emit('/archive/index.html', layouts.render('list', { site, pages: pages.filter((p) => p.date), archive: archive(pages) }));
  for (const r of redirects(pages)) {
    emit(path.posix.join(r.from, 'index.html'), redirectPage(site, r.to));
  }
  emit('/feed.xml', rssFeed(site, pages));
  emit('/sitemap.xml', sitemap(site, pages));
  emit('/search.json', searchIndex(pages));
  for (const f of copyStatic(path.join(root, site.static), out, written)) {
    written.push(f);
  }
  return written.map((w) => w.replace(/^\//, ''));
}
