import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../src/paths';

/** Rules the team relies on, held here rather than by care (README "Contributing"). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every line of src/ with `pattern`, as `<file>:<line>`, with the three lines before it. */
function linesWith(pattern: RegExp): { at: string; before: string }[] {
  return sourceFiles(join(ROOT, 'src')).flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    return lines.flatMap((line, i) =>
      pattern.test(line) ? [{ at: `${relative(ROOT, file)}:${i + 1}`, before: lines.slice(Math.max(0, i - 3), i).join('\n') }] : [],
    );
  });
}

describe('unit: house rules of src/', () => {
  it('reads the environment only in src/config.ts, and once at bootstrap where a comment says why', () => {
    const reads = linesWith(/process\.env\b/).filter((r) => !r.at.startsWith('src/config.ts:'));
    // The bootstrap exception (src/server.ts): the PORT for a startup hint when the configuration may not have loaded.
    const unexplained = reads.filter((r) => !/bootstrap read of the environment/.test(r.before));
    expect(unexplained.map((r) => r.at)).to.deep.equal([]);
    expect(reads.length).to.be.at.most(1);
  });

  it('has no setInterval (a timer that fires while its last run is still going; use a loop that waits for each run)', () => {
    expect(linesWith(/\bsetInterval\s*\(/).map((r) => r.at)).to.deep.equal([]);
  });
});
