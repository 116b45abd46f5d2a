// Module hooks of batch.mjs. A module of the OpenSpec CLI named in `fresh`
// (see freshModules) and imported by a module with a "?run=N" URL gets the
// same query, so each run of the CLI evaluates its own instance of it.
// Every other module keeps its URL and is shared by the runs. What a
// specifier resolves to, and a module's source, are read once: the CLI's
// files do not change during a batch.
let fresh = new Set();
const resolved = new Map();
const sources = new Map();

export function initialize(data) {
  fresh = new Set(data.fresh);
}

const withoutRun = (url) => {
  const q = url.indexOf('?run=');
  return q < 0 ? url : url.slice(0, q);
};

export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  const key = JSON.stringify([withoutRun(parent), specifier, context.conditions, context.importAttributes]);
  let r = resolved.get(key);
  if (r === undefined) {
    r = await next(specifier, context);
    resolved.set(key, r);
  }
  const q = parent.indexOf('?run=');
  if (q < 0 || !fresh.has(r.url)) {
    return { ...r, shortCircuit: true };
  }
  return { ...r, url: r.url + parent.slice(q), shortCircuit: true };
}

export async function load(url, context, next) {
  const base = withoutRun(url);
  if (base === url || !fresh.has(base)) {
    return next(url, context);
  }
  let r = sources.get(base);
  if (r === undefined) {
    r = await next(url, context);
    // As a string: a buffer would be moved to the loading thread, once.
    r = { ...r, source: typeof r.source === 'string' ? r.source : new TextDecoder().decode(r.source) };
    sources.set(base, r);
  }
  return { ...r, shortCircuit: true };
}
