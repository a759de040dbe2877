import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/paths';

/**
 * What a patch of a dependency (patches/*.patch, applied by patch-package) may hold: no change of
 * the dependency's published types (no `.d.ts` hunk), and a header with one section per group of
 * hunks, each naming its files and its upstream issue or pull request, or its draft in
 * patches/README.md with everything an issue needs (patches/README.md says why).
 */
describe('unit: the patches of dependencies', () => {
  const dir = join(ROOT, 'patches');
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const patches = readdirSync(dir).filter((f) => f.endsWith('.patch'));

  /** The draft with this id in patches/README.md: its text up to the next heading. */
  function draft(id: string): string | undefined {
    const start = readme.indexOf(`<a id="${id}"></a>`);
    if (start < 0) return undefined;
    const next = readme.slice(start).search(/\n#{1,3} /);
    return next < 0 ? readme.slice(start) : readme.slice(start, start + next);
  }

  it('there is at least one', () => expect(patches.length).to.be.above(0));

  for (const name of patches) {
    const text = readFileSync(join(dir, name), 'utf8');
    const headerEnd = text.indexOf('\ndiff --git ');
    const header = headerEnd < 0 ? '' : text.slice(0, headerEnd);
    const files = [...text.matchAll(/^diff --git a\/node_modules\/(?:@[^/]+\/)?[^/]+\/(\S+) /gm)].map((m) => m[1]);
    const sections = header
      .split(/^## /m)
      .slice(1)
      .map((body) => ({ title: body.split('\n')[0], body }));

    describe(name, () => {
      it('does not change the published types (no .d.ts hunk)', () => {
        expect(files.length, 'patched files').to.be.above(0);
        expect(files.filter((f) => f.endsWith('.d.ts'))).to.deep.equal([]);
      });

      it('names the upstream issue or pull request, or its draft, of each group of hunks', () => {
        expect(sections.length, 'sections (## ...) in the header').to.be.above(0);
        for (const { title, body } of sections) {
          const upstream = /^Upstream: (.*)$/m.exec(body)?.[1] ?? '';
          const filed = /https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+/.test(upstream);
          const drafted = /patches\/README\.md#([\w-]+)/.exec(upstream)?.[1];
          expect(Boolean(filed || drafted), `${title}: an "Upstream:" line with an issue, a pull request or a draft`).to.equal(true);
          if (!filed) {
            const entry = draft(drafted!);
            expect(entry, `${title}: the draft ${drafted} in patches/README.md`).to.be.a('string');
            for (const part of ['**Problem.**', '**Reproduction.**', '**Proposed fix.**', '**Why we carry it.**']) {
              expect(entry, `${title}: ${drafted} has its ${part}`).to.include(part);
            }
          }
        }
      });

      it('gives every patched file a section, and every section a patched file', () => {
        const named = sections.flatMap(({ title, body }) => {
          const list = /^Files: (.*)$/m.exec(body)?.[1];
          expect(list, `${title}: a "Files:" line`).to.be.a('string');
          return list!.split(',').map((f) => f.trim());
        });
        expect([...new Set(named)].sort()).to.deep.equal([...new Set(files)].sort());
      });
    });
  }
});
