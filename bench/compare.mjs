/**
 * Same response from the service and the floor: same keys and JSON types everywhere (null matches
 * any type: a nullable field may be null in one row only), and the same values in the first rows.
 */
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export function structureDiff(a, b, path = '$', out = []) {
  const ka = kind(a);
  const kb = kind(b);
  if (ka === 'null' || kb === 'null') return out;
  if (ka !== kb) {
    out.push(`${path}: ${ka} vs ${kb}`);
    return out;
  }
  if (ka === 'array') {
    if (a.length && b.length) structureDiff(a[0], b[0], `${path}[0]`, out);
    else if (a.length !== b.length) out.push(`${path}: ${a.length} vs ${b.length} elements`);
  } else if (ka === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a)) out.push(`${path}.${k}: only in the floor`);
      else if (!(k in b)) out.push(`${path}.${k}: only in the service`);
      else structureDiff(a[k], b[k], `${path}.${k}`, out);
    }
  }
  return out;
}

export function valueDiff(a, b, path = '$', out = [], ignore = new Set()) {
  const ka = kind(a);
  if (ka !== kind(b)) {
    out.push(`${path}: ${JSON.stringify(a)?.slice(0, 60)} vs ${JSON.stringify(b)?.slice(0, 60)}`);
  } else if (ka === 'array') {
    if (a.length !== b.length) out.push(`${path}: ${a.length} vs ${b.length} elements`);
    for (let n = 0; n < Math.min(a.length, b.length); n++) valueDiff(a[n], b[n], `${path}[${n}]`, out, ignore);
  } else if (ka === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!ignore.has(k)) valueDiff(a[k], b[k], `${path}.${k}`, out, ignore);
  } else if (a !== b) {
    out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  return out;
}

/** The rows compared by value: the first `n` of the page (or of `data` in a {meta, data} page). */
function head(body, n) {
  if (Array.isArray(body)) return body.slice(0, n);
  if (body && Array.isArray(body.data)) return { ...body, data: body.data.slice(0, n) };
  return body;
}

/** Problems found comparing a service response with the floor's (empty: same). */
export function compareResponses(service, floor, { rows = 3, ignore = [] } = {}) {
  const problems = structureDiff(service, floor);
  problems.push(...valueDiff(head(service, rows), head(floor, rows), '$', [], new Set(ignore)));
  return [...new Set(problems)].slice(0, 20);
}
