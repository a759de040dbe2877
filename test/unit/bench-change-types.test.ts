import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANGE_TYPES, FEED_RESOURCES } from '../../src/feed/change-types';

const BENCH = join(__dirname, '..', '..', '..', 'bench');

/** The bench's scripts (bench/*.mjs and bench/peers/*.mjs) with their text. */
const scripts = () =>
  ['', 'peers'].flatMap((dir) =>
    readdirSync(join(BENCH, dir))
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => ({ file: join(dir, f), text: readFileSync(join(BENCH, dir, f), 'utf8') })),
  );

/**
 * `npm run bench` writes feed entries and subscribes webhook endpoints to types: a type the service
 * no longer accepts stopped it before its webhook rows and summary (`bench.tick`). CI runs the bench
 * as a smoke too (.ci/run); this check fails in the suite, before that.
 */
describe('unit: the change types the benchmark uses are the service’s', () => {
  it('every `type:` and `types: [...]` of a feed entry or an endpoint in bench/ is a listed change type, every `resource:` a feed resource', () => {
    let seen = 0;
    for (const { file, text } of scripts()) {
      for (const [, value] of text.matchAll(/\btype: '([^']+)'/g)) {
        if (value === 'about:blank') continue; // a problem body's type, not a change type
        expect(CHANGE_TYPES, `${file}: type '${value}'`).to.include(value);
        seen++;
      }
      for (const [, list] of text.matchAll(/\btypes: \[([^\]]*)\]/g)) {
        for (const [, value] of list.matchAll(/'([^']+)'/g)) {
          expect(CHANGE_TYPES, `${file}: types '${value}'`).to.include(value);
          seen++;
        }
      }
      for (const [, value] of text.matchAll(/\bresource: '([^']+)'/g)) expect(FEED_RESOURCES, `${file}: resource '${value}'`).to.include(value);
    }
    expect(seen, 'change types found in bench/').to.be.greaterThan(0);
  });
});
