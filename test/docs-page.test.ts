import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadContract } from '../src/http/contract';
import { buildAndServeDocsPage, CHROMIUM, DocsPage, requireChromium } from './support/docs-page';

const run = promisify(execFile);
// Flags that keep Chromium offline and quiet on this kind of machine.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The page's visible text: the DOM without the inlined script and style sources, tags stripped. */
const visibleText = (dom: string) =>
  dom
    .replace(/<script[\s\S]*?<\/script>/gi, '')
    .replace(/<style[\s\S]*?<\/style>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/**
 * The Redoc page a technical writer publishes (`npm run docs`) is one self-contained file that
 * renders with the network off. It is built here from the bundle, hosted the way a writer would
 * host it (a static server answering every path with the page, since Redoc routes per tag), and
 * rendered by headless Chromium (Debian's `chromium` package): no error, guides and every tag
 * listed, and a screenshot is taken.
 */
describe('the Redoc docs page', function () {
  this.timeout(300_000);
  let docs: DocsPage;

  const render = async (path: string, extra: string[] = []) => {
    const { stdout } = await run(
      CHROMIUM,
      [...FLAGS, `--user-data-dir=${join(docs.dir, 'profile')}`, '--virtual-time-budget=10000', ...extra, '--dump-dom', docs.base + path],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return stdout;
  };

  before(async function () {
    requireChromium(this);
    docs = await buildAndServeDocsPage();
  });

  after(async () => {
    await docs?.close();
  });

  it('is self-contained: no script is loaded from a CDN', () => {
    expect(readFileSync(docs.file, 'utf8')).to.not.match(/<script[^>]+src=["']https?:/i);
  });

  it('renders without an error, with the guides and every tag in the navigation', async () => {
    const home = visibleText(await render('/', ['--window-size=1400,1000', `--screenshot=${join(docs.dir, 'docs.png')}`]));
    expect(home).to.not.match(/Something went wrong|Invalid API definition/);
    for (const guide of ['Getting an access token', 'API keys', 'Filters and pagination', 'Errors', 'Limits']) expect(home).to.include(guide);
    for (const tag of loadContract().tags as { name: string }[]) expect(home, `tag ${tag.name} in the navigation`).to.include(tag.name);
    // Redoc 3 renders operations lazily, so a DOM dump cannot list them: test/docs-operations.test.ts
    // drives the page with Playwright and checks every operation and the code samples.
  });

  it('takes a screenshot a person can look at', () => {
    expect(statSync(join(docs.dir, 'docs.png')).size).to.be.above(20_000);
  });
});
