import fs from 'node:fs';
import path from 'node:path';

import { SiteError } from './errors.js';

// staticFiles lists the files under dir (images, stylesheets, …) as slash
// paths relative to it, sorted; hidden files and directories are left out.
export function staticFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(path.relative(dir, p).split(path.sep).join('/'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

// copyStatic copies the files under dir into out as they are and returns
// their paths. taken are the paths the build has written already: a
// static file may not replace a page, a feed or an index.
export function copyStatic(dir, out, taken = []) {
  const generated = new Set(taken.map((t) => t.replace(/^\//, '')));
  const files = staticFiles(dir);
  for (const f of files) {
    if (generated.has(f)) throw new SiteError(`static file ${f} would replace a file the site generates`, { file: path.join(dir, f) });
  }
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(out, f)), { recursive: true });
    fs.copyFileSync(path.join(dir, f), path.join(out, f));
  }
  return files;
}
