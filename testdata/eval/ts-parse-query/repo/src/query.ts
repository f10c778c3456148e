export type Query = Record<string, string | string[]>;

export function parseQuery(qs: string): Query {
  const out: Query = {};
  for (const pair of qs.replace(/^\?/, "").split("&")) {
    const [k, v] = pair.split("=");
    out[k] = v;
  }
  return out;
}
