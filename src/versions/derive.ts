// The contract of every older version, derived from the newest (api/, bundled) and the
// version-change modules (api/versions/): scripts/generate.mjs writes each to
// generated/versions/<version>/. Never a hand copy: the only hand-written parts are the modules.
import type { Contract, FieldChange, JsonObject, VersionChange, VersionDefinition } from './types.ts';
import { SchemaWalker } from './walk.ts';

/** One function per schema doing every change's move of that schema, in the changes' order. */
export function transformsOf(changes: VersionChange[], direction: 'up' | 'down'): Map<string, (value: JsonObject) => JsonObject> {
  const bySchema = new Map<string, FieldChange[]>();
  for (const change of changes) for (const f of change.fields) bySchema.set(f.schema, [...(bySchema.get(f.schema) ?? []), f]);
  const out = new Map<string, (value: JsonObject) => JsonObject>();
  for (const [schema, fields] of bySchema) {
    const ordered = direction === 'up' ? fields : [...fields].reverse();
    out.set(schema, (value) => ordered.reduce((v, f) => f[direction](v), value));
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every media type object of the document's operations: their examples follow their schema. */
function mediaObjects(doc: Contract): any[] {
  const out: any[] = [];
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      out.push(...Object.values(op.requestBody?.content ?? {}));
      for (const response of Object.values<any>(op.responses ?? {})) out.push(...Object.values(response.content ?? {}));
    }
  }
  return out;
}

/** The contract of the version before `newer`, given the changes `newer` made. */
export function olderContract(newer: Contract, changes: VersionChange[]): Contract {
  const older = structuredClone(newer);
  for (const change of changes) for (const f of change.fields) f.contract(older.components.schemas[f.schema]);
  // Examples are the newer version's objects: moved down as a reply would be, so every one is
  // valid for the older contract.
  const walker = new SchemaWalker(newer, transformsOf(changes, 'down'));
  const componentExamples = new Map<string, any>();
  for (const media of mediaObjects(older)) {
    if (!media.schema) continue;
    if (media.example !== undefined) media.example = walker.walk(media.example, media.schema);
    for (const example of Object.values<any>(media.examples ?? {})) {
      if (typeof example.$ref === 'string') componentExamples.set(example.$ref.split('/').pop(), media.schema);
      else if (example.value !== undefined) example.value = walker.walk(example.value, media.schema);
    }
  }
  for (const [name, schema] of componentExamples) {
    const example = older.components.examples?.[name];
    if (example?.value !== undefined) example.value = walker.walk(newer.components.examples![name].value, schema);
  }
  return older;
}

/** Every version's contract, newest first, from the newest one. */
export function versionContracts(newest: Contract, versions: VersionDefinition[]): { version: string; contract: Contract }[] {
  const out = [{ version: versions[0].version, contract: newest }];
  for (let i = 1; i < versions.length; i++) out.push({ version: versions[i].version, contract: olderContract(out[i - 1].contract, versions[i - 1].changes) });
  return out;
}

/** The changelog, newest version first: what each version changed (Markdown, for the docs). */
export function changelog(versions: VersionDefinition[]): string {
  const lines = ['# API versions', ''];
  for (const v of versions) {
    const status = v.sunsetAt ? `deprecated on ${v.deprecatedAt}, sunset on ${v.sunsetAt}` : v === versions[0] ? 'current' : 'supported';
    lines.push(`## ${v.version} (${status})`, '');
    if (!v.changes.length) lines.push('The first dated version: the contract as published until then.', '');
    for (const change of v.changes) {
      lines.push(`### ${change.title}`, '', change.description, '');
      for (const f of change.fields) lines.push(`- ${f.summary}`);
      lines.push('');
    }
  }
  return lines.join('\n');
}
