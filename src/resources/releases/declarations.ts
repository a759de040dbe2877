import type { ResourceDeclarations } from '../declarations';
import { releases } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const releasesDeclarations: ResourceDeclarations = {
  reconciled: { release: releases },
};
