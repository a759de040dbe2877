import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../../src/paths';

/**
 * The layers of src/, bottom to top (README "Layout"). A file may import from its own layer and
 * the layers below it, never from a layer above; and no two folders import each other, whatever
 * their layers. A unit is a folder of src/ or a file at its top; seeds/ and generated/ are units too.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['generated', 'src/config', 'src/paths', 'src/errors', 'src/metrics', 'src/free-port', 'src/startup-hint', 'src/ops'],
  ['src/db', 'src/versions'],
  ['src/feed', 'src/auth', 'src/mail', 'src/webhooks'],
  ['src/http'],
  ['src/resources'],
  ['src/background', 'src/admin', 'src/mock', 'seeds'],
  ['src/app', 'src/server'],
];

const layerOf = new Map(LAYERS.flatMap((units, i) => units.map((u) => [u, i] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function unitOf(abs: string): string {
  const parts = relative(ROOT, abs).split('/');
  if (parts[0] !== 'src') return parts[0];
  return parts.length > 2 ? `src/${parts[1]}` : `src/${parts[1].replace(/\.[a-z]+$/, '')}`;
}

interface Import {
  from: string;
  to: string;
  /** `import('...')`: loaded when first needed, not when the importing file is. */
  lazy: boolean;
}

/** The relative imports of a file: static (`import ... from`, `export ... from`) and lazy (`import()`). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/(from\s+|import\s*\(\s*|require\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = resolve(dirname(file), m[2]).replace(/\.js$/, '');
    found.push({ from: file, to: target, lazy: m[1].startsWith('import') && m[1].includes('(') });
  }
  return found;
}

/**
 * Inside src/resources/ (README "Layout"), bottom to top: the shapes every resource shares, then
 * the resources' folders (any may import another's, never both ways), then the file that
 * assembles them (the handler map and the tables built from each resource's declarations). A unit
 * is a folder of src/resources/ or a file at its top.
 */
const RESOURCE_BASE = ['src/resources/declarations', 'src/resources/crud-handlers', 'src/resources/integration-report'];
const RESOURCE_TOP = ['src/resources/index'];

function resourceUnitOf(abs: string): string | undefined {
  const parts = relative(ROOT, abs).split('/');
  if (parts[0] !== 'src' || parts[1] !== 'resources' || parts.length < 3) return undefined;
  return parts.length > 3 ? `src/resources/${parts[2]}` : `src/resources/${parts[2].replace(/\.[a-z]+$/, '')}`;
}

/** 0 for the shared shapes, 1 for a resource's folder, 2 for the assembly. */
function resourceLevelOf(unit: string, isFolder: boolean): number | undefined {
  if (RESOURCE_BASE.includes(unit)) return 0;
  if (RESOURCE_TOP.includes(unit)) return 2;
  return isFolder ? 1 : undefined;
}

const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'seeds'))];
const imports = files.flatMap(importsOf);

describe('layers of src/ (README "Layout")', () => {
  it('every unit of src/ has a layer', () => {
    const units = [...new Set(files.map(unitOf))];
    expect(units.filter((u) => !layerOf.has(u))).to.deep.equal([]);
  });

  it('no file imports from a layer above its own', () => {
    const upward = imports
      .filter((i) => layerOf.has(unitOf(i.to)) && layerOf.get(unitOf(i.to))! > layerOf.get(unitOf(i.from))!)
      .map((i) => `${relative(ROOT, i.from)} -> ${relative(ROOT, i.to)}`);
    expect(upward).to.deep.equal([]);
  });

  it('no two folders import each other', () => {
    const edges = new Set(imports.map((i) => `${unitOf(i.from)} ${unitOf(i.to)}`).filter((e) => e.split(' ')[0] !== e.split(' ')[1]));
    const mutual = [...edges].filter((e) => {
      const [a, b] = e.split(' ');
      return a < b && edges.has(`${b} ${a}`);
    });
    expect(mutual).to.deep.equal([]);
  });

  describe('inside src/resources/', () => {
    const inside = imports
      .map((i) => ({ ...i, fromUnit: resourceUnitOf(i.from), toUnit: resourceUnitOf(i.to) }))
      .filter((i): i is typeof i & { fromUnit: string; toUnit: string } => !!i.fromUnit && !!i.toUnit && i.fromUnit !== i.toUnit);
    const folders = new Set(
      files
        .filter((f) => relative(ROOT, f).split('/').length > 3)
        .map(resourceUnitOf)
        .filter((u): u is string => !!u),
    );
    const level = (unit: string) => resourceLevelOf(unit, folders.has(unit));

    it('every unit of src/resources/ has a level', () => {
      const units = [...new Set(files.map(resourceUnitOf).filter((u): u is string => !!u))];
      expect(units.filter((u) => level(u) === undefined)).to.deep.equal([]);
    });

    it('no file imports from a level above its own (a resource never imports the assembly; the shared shapes no resource)', () => {
      const upward = inside.filter((i) => level(i.toUnit)! > level(i.fromUnit)!);
      expect(upward.map((i) => `${relative(ROOT, i.from)} -> ${relative(ROOT, i.to)}`)).to.deep.equal([]);
    });

    it('the reconciliation names no resource: its table is gathered from the declarations and handed to it', () => {
      const named = inside.filter((i) => i.fromUnit === 'src/resources/reconciliation' && level(i.toUnit) === 1);
      expect(named.map((i) => `${relative(ROOT, i.from)} -> ${relative(ROOT, i.to)}`)).to.deep.equal([]);
    });

    it('no two folders of src/resources/ import each other', () => {
      const edges = new Set(inside.map((i) => `${i.fromUnit} ${i.toUnit}`));
      const mutual = [...edges].filter((e) => {
        const [a, b] = e.split(' ');
        return a < b && edges.has(`${b} ${a}`);
      });
      expect(mutual).to.deep.equal([]);
    });
  });

  it('src/server.ts and everything it imports statically leave seeds/ out', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of importsOf(file)) {
        if (i.lazy) continue;
        const target = [`${i.to}.ts`, join(i.to, 'index.ts')].find((p) => files.includes(p));
        if (target) visit(target);
      }
    };
    visit(join(ROOT, 'src', 'server.ts'));
    expect(seen.size).to.be.greaterThan(50);
    expect([...seen].filter((f) => unitOf(f) === 'seeds').map((f) => relative(ROOT, f))).to.deep.equal([]);
  });

  it('tells an upward import from a downward one (the check itself)', () => {
    const http = join(ROOT, 'src', 'http', 'x.ts');
    expect(layerOf.get(unitOf(join(ROOT, 'src', 'resources', 'jobs', 'queries')))).to.be.greaterThan(layerOf.get(unitOf(http))!);
    expect(unitOf(join(ROOT, 'src', 'app.ts'))).to.equal('src/app');
  });
});
