import { expect } from 'chai';
import { componentLog, createLogger } from '../../src/ops/log';
import { captureLog } from '../support/log-capture';

describe('unit: componentLog (what background parts report)', () => {
  it("writes JSON lines of the service's logger with the component, and the error as err", () => {
    const out = captureLog();
    const log = componentLog('mailer', createLogger('info', out.stream));
    log.error('delivery run failed', new Error('ECONNREFUSED'));
    log.warn('slow');
    const [error, warning] = out.parsed();
    expect(error).to.include({ component: 'mailer', level: 50, msg: 'delivery run failed' });
    expect(error.err).to.include({ message: 'ECONNREFUSED', type: 'Error' });
    expect(warning).to.include({ component: 'mailer', level: 40, msg: 'slow' });
  });

  it('without a logger, writes one line to stderr prefixed with the component', () => {
    const seen: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void seen.push(args);
    try {
      componentLog('change-feed-retention').error('pruning failed', new Error('boom'));
      componentLog('webhooks').warn('job stuck');
    } finally {
      console.error = original;
    }
    expect(seen).to.deep.equal([['change-feed-retention: pruning failed: boom'], ['webhooks: job stuck']]);
  });
});
