import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../src/paths';

const run = promisify(execFile);

/** A tiny document with every case the rule distinguishes; only the `bad` operations break it. */
const DOCUMENT = `openapi: 3.0.3
info:
  title: Rule fixture
  version: 1.0.0
  license: { name: Proprietary, url: https://example.org/terms }
servers:
  - url: /
security:
  - bearer: []
paths:
  /things:
    get:
      operationId: badListWithQuery
      parameters:
        - { name: limit, in: query, schema: { type: integer } }
      responses:
        '200': { description: ok }
    post:
      operationId: badCreateWithBody
      requestBody:
        content: { application/json: { schema: { type: object } } }
      responses:
        '201': { description: created }
        '401': { description: unauthorized }
  /things/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    get:
      operationId: badReadWithPathParameter
      responses:
        '200': { description: ok }
        '401': { description: unauthorized }
    delete:
      operationId: goodDelete
      responses:
        '200': { description: ok }
        '401': { description: unauthorized }
        '404': { description: not found }
  /search:
    parameters:
      - { name: q, in: query, schema: { type: string } }
    get:
      operationId: badPathLevelQuery
      responses:
        '200': { description: ok }
        '401': { description: unauthorized }
  /token:
    post:
      operationId: goodUnsecuredToken
      security: []
      requestBody:
        content: { application/x-www-form-urlencoded: { schema: { type: object } } }
      responses:
        '200': { description: ok }
        '400': { description: bad request }
  /health:
    get:
      operationId: goodOptionalAuth
      security: [{}, { bearer: [] }]
      responses:
        '200': { description: ok }
components:
  securitySchemes:
    bearer: { type: http, scheme: bearer }
`;

interface LintProblem {
  ruleId: string;
  message: string;
}

/**
 * The `procurement/error-responses` rule of redocly/procurement-plugin.cjs, run by `redocly lint`
 * itself on a small document: it reports exactly the missing 400/401/404 responses and nothing on
 * operations that need none (the real document passes it in `npm run lint:api`).
 */
describe('unit: redocly rule procurement/error-responses', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lint-rule-'));
    writeFileSync(join(dir, 'openapi.yaml'), DOCUMENT);
    writeFileSync(
      join(dir, 'redocly.yaml'),
      `telemetry: off\nplugins:\n  - ${JSON.stringify(join(ROOT, 'redocly', 'procurement-plugin.cjs'))}\nrules:\n  procurement/error-responses: error\n`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports each missing 401, 404 and 400, and nothing else', async () => {
    const args = ['lint', '--config', join(dir, 'redocly.yaml'), '--format=json', join(dir, 'openapi.yaml')];
    const { code, stdout } = await run(join(ROOT, 'node_modules', '.bin', 'redocly'), args, { cwd: dir }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code?: number; stdout?: string }) => ({ code: err.code, stdout: err.stdout ?? '' }),
    );
    expect(code, 'redocly lint fails on the fixture').to.equal(1);
    const problems = (JSON.parse(stdout).problems as LintProblem[]).filter((p) => p.ruleId.endsWith('error-responses'));
    expect(problems.map((p) => p.message).sort()).to.deep.equal(
      [
        '`GET /search` must document a 400 response: it has query parameters.',
        '`GET /things/{id}` must document a 404 response: its path has a path parameter.',
        '`GET /things` must document a 400 response: it has query parameters.',
        '`GET /things` must document a 401 response: it requires credentials.',
        '`POST /things` must document a 400 response: it has a request body.',
      ].sort(),
    );
  });
});
