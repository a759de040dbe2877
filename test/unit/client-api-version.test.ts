import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION } from '../../client/src/api-version.mjs';

/** The kit's types come from the newest contract (generated/api-types.ts): it must ask for that version. */
describe('client kit: its API version', () => {
  it('is the newest version of the contract its types are generated from', () => {
    const versions = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'generated', 'versions', 'index.json'), 'utf8')) as { version: string }[];
    expect(API_VERSION).to.equal(versions[0].version);
  });
});
