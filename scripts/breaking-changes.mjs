// Breaking changes between two versions of the bundled contract (generated/openapi.yaml): what a
// client written against the old one would trip on. CI compares the previous commit's document
// with this one (.ci/run). Checked: removed operations and success responses, removed or newly
// required parameters, newly required request fields, removed response fields, removed enum
// values. `node scripts/breaking-changes.mjs <old.yaml> <new.yaml>`: lists them, exit code 1 when
// there is any (a deliberate break says "BREAKING CHANGE" in its commit message and CHANGELOG).
// `node scripts/breaking-changes.mjs --versions <old generated/> <new generated/>`: the same for
// every dated version (versionBreaks): what CI runs.
// Paths are compared by their shape and path parameters by position, as HTTP sees them: renaming a
// template variable (`/jobs/{idOrCode}` to `/jobs/{jobIdOrCode}`) changes no URL a client calls,
// so it is not a break (only code generated from the contract sees the new name).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as yaml from 'js-yaml';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The template as HTTP sees it: `/jobs/{idOrCode}` and `/jobs/{jobIdOrCode}` are one route. */
const shape = (path) => path.replace(/\{[^}]+\}/g, '{}');

function resolver(doc) {
  const resolve = (node) => {
    let n = node;
    for (let hops = 0; n && n.$ref && hops < 20; hops++)
      n = n.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return n;
  };
  return resolve;
}

function operations(doc) {
  const resolve = resolver(doc);
  const ops = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    // A path parameter is the value at its place in the template, whatever its name.
    const place = new Map([...path.matchAll(/\{([^}]+)\}/g)].map((m, i) => [m[1], i]));
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = new Map();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve)) {
        const key = p.in === 'path' && place.has(p.name) ? `path #${place.get(p.name)}` : `${p.in} ${p.name}`;
        params.set(key, p);
      }
      ops.set(`${method.toUpperCase()} ${shape(path)}`, { op, params, name: `${method.toUpperCase()} ${path}` });
    }
  }
  return { ops, resolve };
}

/** Every property path a schema describes (`.a.b`, `[].c`), through $ref, allOf and items. */
function fields(schema, resolve, prefix = '', out = new Set(), seen = []) {
  const s = resolve(schema);
  if (!s || typeof s !== 'object' || seen.includes(s) || seen.length > 12) return out;
  const next = [...seen, s];
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) fields(part, resolve, prefix, out, next);
  if (s.items) fields(s.items, resolve, prefix + '[]', out, next);
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    out.add(prefix + '.' + name);
    fields(prop, resolve, prefix + '.' + name, out, next);
  }
  return out;
}

function requiredFields(schema, resolve) {
  const s = resolve(schema);
  return new Set([...(s?.required ?? []), ...(s?.allOf ?? []).flatMap((p) => resolve(p)?.required ?? [])]);
}

/** Every enum in the document by its location (a path by its shape), so a value removed anywhere is seen. */
function enums(doc) {
  const out = new Map();
  const { paths, ...rest } = doc;
  enumsIn(rest, '#', out);
  for (const [path, item] of Object.entries(paths ?? {})) enumsIn(item, `#/paths/${shape(path)}`, out);
  return out;
}

function enumsIn(node, at, out) {
  if (Array.isArray(node)) node.forEach((n, i) => enumsIn(n, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    if (Array.isArray(node.enum)) out.set(at, node.enum);
    for (const [k, v] of Object.entries(node)) if (k !== 'enum' && k !== 'example' && k !== 'examples') enumsIn(v, `${at}/${k}`, out);
  }
  return out;
}

const jsonSchemaOf = (content) => content?.['application/json']?.schema ?? content?.['application/problem+json']?.schema;

export function breakingChanges(before, after) {
  const a = operations(before);
  const b = operations(after);
  const found = [];
  for (const [route, old] of a.ops) {
    const now = b.ops.get(route);
    const key = old.name; // as the old document spells it
    if (!now) {
      found.push(`${key}: operation removed`);
      continue;
    }
    for (const [name, p] of old.params) {
      const q = now.params.get(name);
      const called = `${p.in} ${p.name}`;
      if (!q) found.push(`${key}: parameter ${called} removed`);
      else if (q.required && !p.required) found.push(`${key}: parameter ${called} is now required`);
    }
    for (const [name, q] of now.params) if (q.required && !old.params.has(name)) found.push(`${key}: new required parameter ${q.in} ${q.name}`);
    const oldBody = jsonSchemaOf(a.resolve(old.op.requestBody)?.content);
    const newBody = jsonSchemaOf(b.resolve(now.op.requestBody)?.content);
    if (oldBody && newBody) {
      const was = requiredFields(oldBody, a.resolve);
      for (const field of requiredFields(newBody, b.resolve)) if (!was.has(field)) found.push(`${key}: request field ${field} is now required`);
    }
    for (const [status, response] of Object.entries(old.op.responses ?? {})) {
      const newResponse = now.op.responses?.[status];
      if (!newResponse) {
        if (status.startsWith('2')) found.push(`${key}: response ${status} removed`);
        continue;
      }
      const oldFields = fields(jsonSchemaOf(a.resolve(response)?.content), a.resolve);
      const newFields = fields(jsonSchemaOf(b.resolve(newResponse)?.content), b.resolve);
      for (const f of oldFields) if (!newFields.has(f)) found.push(`${key}: response ${status} field ${f || '(body)'} removed`);
    }
  }
  const newEnums = enums(after);
  for (const [at, values] of enums(before)) {
    const now = newEnums.get(at);
    if (!now) continue; // the schema itself moved or went: reported above where it matters
    for (const v of values) if (!now.includes(v)) found.push(`${at}: enum value ${JSON.stringify(v)} removed`);
  }
  return found;
}

/** A generated/ tree's versions, newest first (generated/versions/index.json); null before versions existed. */
function versionsOf(root) {
  const index = join(root, 'versions', 'index.json');
  return existsSync(index) ? JSON.parse(readFileSync(index, 'utf8')) : null;
}

/** A version's bundled contract in a generated/ tree: the newest at its root, older ones under versions/<version>/. */
const contractIn = (root, version, newest) =>
  JSON.parse(readFileSync(version === newest ? join(root, 'openapi.json') : join(root, 'versions', version, 'openapi.json'), 'utf8'));

/**
 * The version gate between two generated/ trees (the previous commit's and this one's): every
 * version the previous one served still reads the same to its clients (no breaking change; additive
 * changes reach every version) and is still served unless its sunset has passed. The newest version
 * may only break by being cut: then the previous newest is an older version of this tree, held to
 * the same rule, and the new one has nothing before it. Before versions existed, the previous
 * tree's contract is the first version's.
 */
export function versionBreaks(before, after, now = Date.now()) {
  const current = versionsOf(after);
  const previous = versionsOf(before) ?? [{ version: current.at(-1).version, sunsetAt: null }];
  const found = [];
  for (const { version, sunsetAt } of previous) {
    if (!current.some((v) => v.version === version)) {
      if (!sunsetAt || Date.parse(sunsetAt + 'T00:00:00Z') > now) found.push(`version ${version}: removed before its sunset (${sunsetAt ?? 'none announced'})`);
      continue;
    }
    const breaks = breakingChanges(contractIn(before, version, previous[0].version), contractIn(after, version, current[0].version));
    found.push(...breaks.map((b) => `version ${version}: ${b}`));
  }
  return found;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === '--versions') {
  const [oldRoot, newRoot] = process.argv.slice(3);
  const found = versionBreaks(oldRoot, newRoot);
  if (found.length) {
    console.log(`Breaking changes to released versions (${found.length}); a breaking change is a new version (api/versions/):`);
    for (const f of found) console.log(`  ${f}`);
    process.exit(1);
  }
  console.log('No version breaks its clients.');
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [oldFile, newFile] = process.argv.slice(2);
  if (!oldFile || !newFile) {
    console.error('usage: node scripts/breaking-changes.mjs <old openapi.yaml> <new openapi.yaml>');
    process.exit(2);
  }
  const found = breakingChanges(yaml.load(readFileSync(oldFile, 'utf8')), yaml.load(readFileSync(newFile, 'utf8')));
  if (found.length) {
    console.log(`Breaking changes to the contract (${found.length}):`);
    for (const f of found) console.log(`  ${f}`);
    process.exit(1);
  }
  console.log('No breaking change to the contract.');
}
