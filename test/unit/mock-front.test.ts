import { expect } from 'chai';
import { pipelineSteps, type PipelineDeps } from '../../src/http/pipeline';
import { createMockFront, MOCK_LEAVES_OUT } from '../../src/mock/front';

describe("unit: the mock's front runs the service's pipeline (src/mock/front.ts)", () => {
  const steps = Object.keys(pipelineSteps({} as PipelineDeps));

  it('leaves out only steps of the pipeline, each with its reason', () => {
    expect(Object.keys(MOCK_LEAVES_OUT).filter((name) => !steps.includes(name))).to.deep.equal([]);
    expect(Object.values(MOCK_LEAVES_OUT).filter((reason) => !reason.trim())).to.deep.equal([]);
  });

  it('runs the request checks a bad request meets in the service', () => {
    const runs = steps.filter((name) => !(name in MOCK_LEAVES_OUT));
    expect(runs).to.include.members(['requestId', 'routeRequest', 'authentication', 'jsonBody', 'inputGuard', 'api', 'problemResponder']);
  });

  it('builds every step it does not leave out without the settings, database or logger it does not have (a new step is named or runs)', async () => {
    const app = await createMockFront({ host: '127.0.0.1', port: 9 });
    expect(app).to.be.a('function');
  });
});
