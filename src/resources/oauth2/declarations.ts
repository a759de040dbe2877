import type { ResourceDeclarations } from '../declarations';
import { answerInvalidTokenRequest, tokenValidationFail } from './token';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const oauth2Declarations: ResourceDeclarations = {
  feedExcluded: {
    issueToken: 'issues an access token (credentials are not a resource of the contract)',
  },
  // The token endpoint answers its client errors as RFC 6749 5.2 says, not as problems.
  validationFail: { issueToken: tokenValidationFail },
  ownProblemFormats: { issueToken: answerInvalidTokenRequest },
};
