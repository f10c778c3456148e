export { build } from './build.js';
export { renderMarkdown } from './markdown.js';
export { render as renderTemplate, compile } from './template.js';
export { slugify, slugger } from './slug.js';
export { splitFrontMatter } from './frontmatter.js';
export { paginate } from './paginate.js';
export { rssFeed } from './feed.js';
export { tableOfContents } from './toc.js';
