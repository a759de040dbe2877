// typescript-eslint's recommended rules over our TypeScript and JavaScript; `npm test` runs it
// (`npm run lint`) and it must stay clean.
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'client/dist/', 'generated/', 'node_modules/', '.data/', 'bench/results/'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Response bodies in black-box tests are typed `any` on purpose; handlers are typed from the
      // contract (src/http/handler.ts). In src/, explicit `any` is counted and capped by
      // test/unit/house-rules.test.ts (each remaining one says why no type can be given).
      '@typescript-eslint/no-explicit-any': 'off',
      // `_name` marks a parameter or binding kept for its position or left out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Build scripts, the benchmark and the Redocly plugins run on Node as plain JavaScript.
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
