import type { ResourceDeclarations } from '../declarations';
import { tags } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const tagsDeclarations: ResourceDeclarations = {
  reconciled: { tag: tags },
};
