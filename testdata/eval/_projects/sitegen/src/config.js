import { SiteError } from './errors.js';

export const DEFAULTS = {
  title: 'My site',
  url: 'http://localhost:8080',
  description: '',
  perPage: 10,
  content: 'content',
  layouts: 'layouts',
  output: 'public',
  static: 'static',
  drafts: false,
};

// resolveConfig checks a site.json object and fills in the defaults.
export function resolveConfig(raw = {}, file = 'site.json') {
  const c = { ...DEFAULTS };
  for (const [k, v] of Object.entries(raw)) {
    if (!(k in DEFAULTS)) throw new SiteError(`unknown setting ${JSON.stringify(k)}`, { file });
    if (typeof v !== typeof DEFAULTS[k]) throw new SiteError(`${k} must be a ${typeof DEFAULTS[k]}`, { file });
    c[k] = v;
  }
  if (!Number.isInteger(c.perPage) || c.perPage < 1) throw new SiteError('perPage must be a whole number, 1 or more', { file });
  if (!/^https?:\/\//.test(c.url)) throw new SiteError('url must start with http:// or https://', { file });
  return c;
}
