// typescript-eslint's recommended rules over the TypeScript sources. Not yet part of `npm test`:
// the tree is brought to a clean lint in one pass after the current branches are merged.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'generated/', 'node_modules/', '.data/', 'bench/results/'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', fetch: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', AbortSignal: 'readonly' } },
  },
);
