/**
 * An integrator's check of its copy against the service (GET /reconciliation/{resource}), typed by
 * the contract (generated/api-types.ts) with openapi-fetch: compute the digests of the local copy,
 * compare them with the service's from the top down, and print the ids that differ (then re-read
 * those objects, see the guide "Checking your copy").
 *
 * The digests, as the contract defines them: an object's is the lowercase hex SHA-256 of its RFC
 * 8785 (JSON Canonicalization Scheme) serialization, made here by the `canonicalize` package (the
 * RFC authors' implementation for JavaScript, on npm); a set's is the SHA-256 of one line
 * `<id>:<objectDigest>\n` per object, sorted by id.
 *
 * Run it with `npx tsc -p . && node dist/examples/reconcile.js <resource> <directory>`, the
 * directory holding the copy as JSON files (each an object or an array of objects, as the single
 * reads or the feed's `data` returned them), and API_BASE_URL, CLIENT_ID, CLIENT_SECRET set.
 */
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api-types';
import { getAccessToken } from './export-items';

type Resource = components['schemas']['ReconciliationResource'];
type Answer = components['schemas']['Reconciliation'];
type Api = ReturnType<typeof createClient<paths>>;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** An object's digest: SHA-256 of its RFC 8785 form. */
export function objectDigest(object: unknown): string {
  const text = canonicalize(object);
  if (text === undefined) throw new TypeError('the object has no JSON form');
  return sha256(text);
}

/** Digests of a local copy (objects by id), computed once and then grouped by any prefix. */
export class LocalDigests {
  /** [hex id without dashes, id, digest], sorted by id. */
  private readonly rows: [string, string, string][];

  constructor(copy: Map<string, unknown>) {
    this.rows = [...copy].map(([id, o]): [string, string, string] => [id.toLowerCase().replace(/-/g, ''), id.toLowerCase(), objectDigest(o)]);
    this.rows.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }

  /** The objects whose id starts with `prefix` (hex digits): their set digest, and each object's. */
  at(prefix: string): { count: number; digest: string; objects: Map<string, string> } {
    const hash = createHash('sha256');
    const objects = new Map<string, string>();
    for (const [hex, id, digest] of this.rows) {
      if (!hex.startsWith(prefix)) continue;
      hash.update(`${id}:${digest}\n`, 'utf8');
      objects.set(id, digest);
    }
    return { count: objects.size, digest: hash.digest('hex'), objects };
  }
}

async function digestsOf(api: Api, resource: Resource, prefix: string): Promise<Answer> {
  const { data, error } = await api.GET('/reconciliation/{resource}', { params: { path: { resource }, query: prefix ? { prefix } : {} } });
  if (!data) throw new Error(`GET /reconciliation/${resource}?prefix=${prefix} failed: ${JSON.stringify(error)}`);
  return data;
}

/**
 * The ids whose object differs between the copy and the service (changed, missing from the copy,
 * or gone from the service), found from the top digest down: only the buckets whose digest
 * differs are opened, so a few differences take at most 8 requests each. Also returns `asOf`: the
 * copy should have applied the feed up to it (compare again after reading on, when it has not).
 */
export async function differingIds(api: Api, resource: Resource, copy: Map<string, unknown>): Promise<{ asOf: string; ids: string[]; requests: number }> {
  const local = new LocalDigests(copy);
  const ids: string[] = [];
  let requests = 0;
  let asOf = '';
  const visit = async (prefix: string): Promise<void> => {
    requests += 1;
    const theirs = await digestsOf(api, resource, prefix);
    asOf ||= theirs.asOf;
    const ours = local.at(prefix);
    if (theirs.digest === ours.digest) return;
    if (theirs.objects) {
      const service = new Map(theirs.objects.map((o) => [o.id, o.digest]));
      for (const id of new Set([...service.keys(), ...ours.objects.keys()])) if (service.get(id) !== ours.objects.get(id)) ids.push(id);
      return;
    }
    for (const bucket of theirs.buckets) {
      if (bucket.digest !== local.at(bucket.prefix).digest) await visit(bucket.prefix);
    }
  };
  await visit('');
  return { asOf, ids: ids.sort(), requests };
}

/** A copy from a directory of JSON files: each file an object with an `id`, or an array of them. */
export function readCopy(directory: string): Map<string, unknown> {
  const copy = new Map<string, unknown>();
  for (const name of readdirSync(directory).filter((n) => n.endsWith('.json'))) {
    const parsed: unknown = JSON.parse(readFileSync(join(directory, name), 'utf8'));
    for (const o of Array.isArray(parsed) ? parsed : [parsed]) copy.set((o as { id: string }).id, o);
  }
  return copy;
}

/** Signs in with client credentials and compares the copy of `resource`. */
export async function reconcile(baseUrl: string, clientId: string, clientSecret: string, resource: Resource, copy: Map<string, unknown>) {
  const token = await getAccessToken(baseUrl, clientId, clientSecret);
  return differingIds(createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } }), resource, copy);
}

if (require.main === module) {
  const { API_BASE_URL = 'http://localhost:3000', CLIENT_ID = '', CLIENT_SECRET = '' } = process.env;
  const [resource, directory] = process.argv.slice(2);
  reconcile(API_BASE_URL, CLIENT_ID, CLIENT_SECRET, resource as Resource, readCopy(directory)).then(
    ({ asOf, ids, requests }) => {
      console.log(`${ids.length} ${resource} objects differ at asOf ${asOf} (${requests} requests)`);
      for (const id of ids) console.log(id);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
