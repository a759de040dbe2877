import { expect } from 'chai';
import { contractOperations, fillTemplate, templateMatcher, templateShape } from '../../src/http/contract';

/** The one reading of path templates that tests and scripts/prism-log.mjs share. */
describe('path templates', () => {
  it('fills each parameter by name', () => {
    expect(fillTemplate('/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}', (name) => `<${name}>`)).to.equal('/jobs/<jobIdOrCode>/phases/<phaseIdOrCode>');
    expect(templateShape('/global-phases/{phaseIdOrCode}')).to.equal(templateShape('/global-phases/{id}'));
  });

  it('matches one segment per parameter, literally elsewhere', () => {
    const { pattern } = templateMatcher('/jobs/{jobIdOrCode}/phases');
    expect(pattern.test('/jobs/J-1.2/phases')).to.equal(true);
    expect(pattern.test('/jobs/J-1/x/phases')).to.equal(false);
    expect(pattern.test('/jobs//phases')).to.equal(false);
    expect(pattern.test('/jobs/J-1/phases/')).to.equal(false);
    expect(templateMatcher('/a.b/{x}').pattern.test('/aXb/1')).to.equal(false);
  });

  it('ranks the exact template above the parameter one', () => {
    expect(templateMatcher('/jobs/batch').literal).to.be.above(templateMatcher('/jobs/{jobIdOrCode}').literal);
  });

  it("matches every operation's own path with values in it", () => {
    for (const { path } of contractOperations()) expect(templateMatcher(path).pattern.test(fillTemplate(path, () => 'X-1')), path).to.equal(true);
  });
});
