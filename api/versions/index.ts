// The API's dated versions, newest first. `api/` describes the first of them; each older one is
// derived from the one after it by that version's change modules (one file each, in this folder).
// A released version never changes: CI compares its generated contract with the previous commit's.
// The rule (guide, "Versions"): a breaking change is a new version; an older version lives at
// least 12 months after its successor's release, its sunset announced on the wire from that day.
import type { VersionDefinition } from '../../src/versions/types.ts';
import retireDeprecatedOrderFields from './2026-12-15-retire-deprecated-order-fields.ts';

export const VERSIONS: VersionDefinition[] = [
  { version: '2026-12-15', releasedAt: '2026-12-15', changes: [retireDeprecatedOrderFields] },
  // The contract as published from the first release (1.0.0) to 1.1.0.
  { version: '2026-06-01', releasedAt: '2026-06-01', deprecatedAt: '2026-12-15', sunsetAt: '2027-12-15', changes: [] },
];
