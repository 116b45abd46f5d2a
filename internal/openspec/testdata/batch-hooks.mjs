// Module resolve hook of batch.mjs: a module of the OpenSpec CLI named in
// `fresh` (see freshModules) and imported by a module with a "?run=N" URL
// gets the same query, so each run of the CLI evaluates its own instance
// of it. Every other module keeps its URL and is shared by the runs.
let fresh = new Set();

export function initialize(data) {
  fresh = new Set(data.fresh);
}

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const parent = context.parentURL ?? '';
  const q = parent.indexOf('?run=');
  if (q < 0 || !fresh.has(r.url)) {
    return r;
  }
  return { ...r, url: r.url + parent.slice(q) };
}
