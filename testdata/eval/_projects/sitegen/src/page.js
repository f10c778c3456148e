import { excerpt } from './excerpt.js';
import { splitFrontMatter } from './frontmatter.js';
import { renderMarkdown } from './markdown.js';
import { readingTime } from './reading.js';
import { slugify } from './slug.js';
import { pageUrl } from './urls.js';

// makePage reads a page from its path under content/ (posts/hello.md) and
// text: front matter, rendered HTML, and what lists and feeds need.
export function makePage(relPath, text) {
  const { data, body } = splitFrontMatter(text, relPath);
  const parts = relPath.replace(/\.md$/, '').split('/');
  const name = parts.pop();
  const section = parts.join('/');
  const slug = data.slug ? slugify(data.slug) : slugify(name);
  const tags = Array.isArray(data.tags) ? data.tags.map(String) : data.tags ? [String(data.tags)] : [];
  return {
    path: relPath,
    section,
    slug,
    url: pageUrl(section, slug),
    title: data.title ?? name,
    date: data.date instanceof Date ? data.date : null,
    draft: data.draft === true,
    tags,
    data,
    body,
    html: renderMarkdown(body),
    summary: data.summary ?? excerpt(body),
    minutes: readingTime(body),
  };
}
