// joinUrl joins a site's base URL and a path with one slash between.
export function joinUrl(base, path) {
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

// pageUrl is the URL path of a page from its slug: /posts/hello/.
export function pageUrl(section, slug) {
  const parts = [section, slug].filter(Boolean);
  return '/' + parts.join('/') + '/';
}
