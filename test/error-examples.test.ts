import { expect } from 'chai';
import { contractOperations, loadContract } from '../src/http/contract';

/**
 * Every error example of the contract is one the service could have sent for its operation: the
 * docs teach these bodies and the mock serves them. A field names an input the operation has (a
 * GET never names a body field; an unknown query parameter may be named on any operation, which
 * refuses it), and the `detail` of a single error is its message (badRequest in src/errors.ts).
 */
const doc = loadContract();

function resolve(obj: any): any {
  if (!obj?.$ref) return obj;
  const path = (obj.$ref as string).replace(/^#\//, '').split('/');
  return resolve(path.reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc));
}

interface ProblemExample {
  status: number;
  detail: string;
  errors: { message: string; field?: string; rule?: string }[];
}

/** The problem examples of an operation's 4xx responses, by where they are. */
function problemExamples(operation: any): [string, ProblemExample][] {
  const out: [string, ProblemExample][] = [];
  for (const [status, ref] of Object.entries(operation.responses ?? {})) {
    if (!/^4/.test(status)) continue;
    const media = resolve(ref).content?.['application/problem+json'];
    if (!media) continue;
    if (media.example) out.push([status, media.example]);
    for (const [name, example] of Object.entries(media.examples ?? {})) out.push([`${status} ${name}`, resolve(example).value]);
  }
  return out;
}

describe('the error examples of the contract', () => {
  it('are each one the service could have sent for its operation', () => {
    const problems: string[] = [];
    for (const { method, path, operation } of contractOperations()) {
      const params = (operation.parameters ?? []).map(resolve) as { name: string; in: string }[];
      const named = (where: string) => new Set(params.filter((p) => p.in === where).map((p) => p.name.toLowerCase()));
      const inputs = { query: named('query'), path: named('path'), header: named('header') };
      const hasBody = !!operation.requestBody;
      for (const [where, example] of problemExamples(operation)) {
        const at = `${method} ${path} ${where}`;
        if (example.errors.length === 1 && !example.errors[0].message.startsWith('Position ') && example.detail !== example.errors[0].message)
          problems.push(`${at}: detail ${JSON.stringify(example.detail)} is not the single error's message`);
        for (const item of example.errors) {
          if (item.message.startsWith('Position ') && !hasBody) problems.push(`${at}: a batch's element errors on an operation without a body`);
          // Other statuses name what they are about (`order`, the cursor), not always an input.
          if (!item.field || !where.startsWith('400')) continue;
          const [base, name = ''] = item.field.split(/[.[]/);
          const known =
            base === 'body'
              ? hasBody
              : base === 'query'
                ? inputs.query.has(name.toLowerCase()) || item.rule === 'additionalProperties'
                : base === 'path' || base === 'header'
                  ? inputs[base].has(name.toLowerCase())
                  : false;
          if (!known) problems.push(`${at}: names ${item.field}, which this operation does not take`);
        }
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
