import { expect } from 'chai';
import { chromium, Browser, Page } from 'playwright-core';
import { contractOperations } from '../src/http/contract';
import { buildAndServeDocsPage, CHROMIUM, DocsPage, requireChromium } from './support/docs-page';

/** Redoc 3 gives each operation section the id `<tag slug>/<operationId in lower case>`. */
const sectionId = (tag: string, operationId: string) => `${tag.toLowerCase().replace(/\s+/g, '-')}/${operationId.toLowerCase()}`;

/**
 * The published Redoc page, rendered by Debian's headless Chromium through Playwright with every
 * request outside 127.0.0.1 blocked: each operation of the bundle gets its section (with its
 * summary, method and path) and the x-codeSamples show in the request panel, in both languages,
 * and nothing logs an error.
 *
 * Redoc 3 (Redocly CLI 2) renders lazily: only the operations near the one in the address are in
 * the DOM. Its hash route (`#/<tag>/<operationid>`) renders an operation, so the test visits each
 * one in turn on one loaded page (Redoc 2's `operation/<operationId>` ids no longer exist).
 */
describe('the Redoc docs page: every operation and the code samples', function () {
  this.timeout(120_000);
  let docs: DocsPage;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const external: string[] = [];

  before(async function () {
    requireChromium(this);
    docs = await buildAndServeDocsPage();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).hostname === '127.0.0.1') return route.continue();
      external.push(url);
      return route.abort();
    });
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`console error: ${msg.text()} (${msg.location().url})`);
    });
    await page.goto(docs.base + '/', { waitUntil: 'load' });
    await page.locator('[id="section/getting-an-access-token"]').waitFor({ timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
    await docs?.close();
  });

  const open = async (id: string) => {
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/${id}`);
    const section = page.locator(`[id="${id}"]`);
    await section.waitFor({ state: 'attached', timeout: 5_000 });
    return section;
  };

  it('renders every operation of the bundle with its summary, method and path', async () => {
    const operations = contractOperations().map(({ method, path, operationId, operation }) => ({
      operationId,
      id: sectionId(operation.tags![0], operationId),
      parts: [operation.summary as string, method, path],
    }));
    // One round trip: the page visits each operation's route and reports the text of its section
    // once it shows everything expected (Redoc fills a section in after creating it), or after 5 s.
    const shown = await page.evaluate(async (ops) => {
      const texts: Record<string, string | null> = {};
      for (const { id, parts } of ops) {
        window.location.hash = `#/${id}`;
        const started = Date.now();
        const text = () => document.getElementById(id)?.textContent ?? null;
        while (!parts.every((part) => text()?.includes(part)) && Date.now() - started < 5_000) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        texts[id] = text();
      }
      return texts;
    }, operations);
    const missing: string[] = [];
    for (const { operationId, id, parts } of operations) {
      const text = shown[id];
      if (text == null) missing.push(`${operationId}: no section #${id}`);
      else for (const part of parts) if (!text.includes(part)) missing.push(`${operationId}: "${part}" not shown in #${id}`);
    }
    expect(missing).to.deep.equal([]);
    expect(operations.length).to.be.above(100);
  });

  it('shows the code samples of an operation in its request panel, curl and TypeScript', async () => {
    const op = contractOperations().find((o) => o.operationId === 'createJob')!;
    const samples = op.operation['x-codeSamples']!;
    const source = (lang: string) => samples.find((s) => s.lang === lang)!.source.trim();
    const section = await open(sectionId(op.operation.tags![0], op.operationId));
    const code = section.locator('pre[data-testid="source-code"] code');

    // curl is the first configured language (redocly.yaml `openapi.codeSamples`).
    expect((await code.first().innerText()).trim()).to.equal(source('curl'));
    await section.locator('button[aria-haspopup="menu"]', { hasText: 'curl' }).click();
    await page.getByRole('menuitem', { name: 'TypeScript', exact: true }).click();
    await section.locator('pre[data-testid="source-code"] code[data-language="ts"]').waitFor({ timeout: 5_000 });
    expect((await code.first().innerText()).trim()).to.equal(source('TypeScript'));
  });

  it('loads nothing from another host (not even the Redocly badge logo), and logs no error', () => {
    expect(external).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
  });
});
