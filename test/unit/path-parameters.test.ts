import { expect } from 'chai';
import * as yaml from 'js-yaml';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT } from '../../src/paths';

/**
 * The contract says each thing once: one component per path parameter meaning, so one object is
 * named the same way in every path (`{orderId}` in `/orders/{orderId}` and in
 * `/orders/{orderId}/releases`), every handler and typed client reads it under one name, and a write
 * and the read of its object take the same parameters. Checked on the hand-written sources in api/.
 */
type Parameter = { name: string; in: string; description?: string; $ref?: string };
type PathItem = { parameters?: Parameter[] } & Record<string, { parameters?: Parameter[] } | Parameter[] | undefined>;

const API = join(ROOT, 'api');
const load = (file: string) => yaml.load(readFileSync(file, 'utf8')) as any;
const templateVariables = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/** Every `in: path` component of api/components/parameters, by file name. */
const pathComponents = new Map<string, Parameter>(
  readdirSync(join(API, 'components', 'parameters'))
    .map((file) => [file, load(join(API, 'components', 'parameters', file)) as Parameter] as const)
    .filter(([, p]) => p.in === 'path'),
);

/** Every path of api/openapi.yaml with the file that holds it. */
const paths = Object.entries(load(join(API, 'openapi.yaml')).paths as Record<string, { $ref: string }>).map(([path, { $ref }]) => ({
  path,
  file: $ref,
  item: load(join(API, $ref)) as PathItem,
}));

/** The path parameters a path item declares (its own and its operations'), by component file or inline. */
type Declared = { component?: string; inline?: Parameter };
function declaredPathParameters(item: PathItem): Declared[] {
  const all = [...(item.parameters ?? []), ...Object.values(item).flatMap((op) => (op && !Array.isArray(op) ? (op.parameters ?? []) : []))];
  return all.flatMap((p): Declared[] => {
    if (p.$ref) {
      const component = basename(p.$ref);
      return pathComponents.has(component) ? [{ component }] : [];
    }
    return p.in === 'path' ? [{ inline: p }] : [];
  });
}

const groupBy = <T>(items: T[], key: (t: T) => string) => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

describe('path parameters in the contract: one component per meaning', () => {
  it('finds the path parameter components and the templated paths', () => {
    expect(pathComponents.size).to.be.greaterThan(10);
    expect(paths.filter((p) => p.path.includes('{')).length).to.be.greaterThan(40);
  });

  it('gives no two path parameter components the same name', () => {
    const shared = [...groupBy([...pathComponents], ([, p]) => p.name)].filter(([, group]) => group.length > 1);
    expect(shared.map(([name, group]) => `{${name}}: ${group.map(([file]) => file).join(', ')}`)).to.deep.equal([]);
  });

  it('gives no two path parameter components the same description (the same meaning said twice)', () => {
    const shared = [...groupBy([...pathComponents], ([, p]) => p.description ?? '')].filter(([, group]) => group.length > 1);
    expect(shared.map(([, group]) => group.map(([file]) => file).join(', '))).to.deep.equal([]);
  });

  it('declares each template variable of each path by exactly one component of that name, none inline', () => {
    const problems: string[] = [];
    for (const { path, item } of paths) {
      const declared = declaredPathParameters(item);
      for (const { inline } of declared) if (inline) problems.push(`${path}: {${inline.name}} declared inline`);
      const components = [...new Set(declared.flatMap((d) => (d.component ? [d.component] : [])))];
      const names = components.map((c) => pathComponents.get(c)!.name);
      for (const variable of templateVariables(path)) {
        const matching = components.filter((c) => pathComponents.get(c)!.name === variable);
        if (matching.length !== 1) problems.push(`${path}: {${variable}} declared by ${matching.length} components`);
      }
      for (const name of names) if (!templateVariables(path).includes(name)) problems.push(`${path}: {${name}} is not in the template`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('uses every path parameter component, and names each path file after its template', () => {
    const used = new Set(paths.flatMap(({ item }) => declaredPathParameters(item).flatMap((d) => (d.component ? [d.component] : []))));
    expect([...pathComponents.keys()].filter((c) => !used.has(c))).to.deep.equal([]);
    const misnamed = paths.filter(({ path, file }) => file !== `paths/${path.slice(1).replace(/\//g, '_')}.yaml`);
    expect(misnamed.map(({ path, file }) => `${path}: ${file}`)).to.deep.equal([]);
  });
});
