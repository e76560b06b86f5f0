// Lint config: typescript-eslint's type-aware recommended rules over everything tsc compiles.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layoutConfig } from './eslint.layout.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test/fixtures/static/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      'no-console': 'off',
    },
  },
  {
    // The pages and what they share compile for the browser, in ui/tsconfig.json's project (the root
    // project excludes them: they see DOM types, not Node's).
    files: ['ui/**/*.ts', 'actors/*/ui/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: ['./ui/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
  },
  layoutConfig,
  { files: ['eslint.config.js', 'eslint.layout.js'], ...tseslint.configs.disableTypeChecked },
);
