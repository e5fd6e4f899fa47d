// @ts-check
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", ".tools-build/", "coverage/", "data/", "test-artifacts/"] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Style only, and both forms are in use (T[] mostly, Array<{ … }> for object elements): 61 rewrites for nothing.
      "@typescript-eslint/array-type": "off",
      // The empty functions are deliberate no-op loggers, listeners and stubs.
      "@typescript-eslint/no-empty-function": "off",
      // `||` on strings is deliberate: "" (an unset environment variable, an empty field) means absent.
      "@typescript-eslint/prefer-nullish-coalescing": ["error", { ignorePrimitives: { string: true } }],
      // `_name` marks a parameter kept for its position; rest siblings drop fields on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // Control characters in a pattern are what the protocol strips and the tests feed it.
      "no-control-regex": "off",
      // Emoji classes list code points (modifiers, ZWJ, U+FE0F) one by one, written as escapes.
      "no-misleading-character-class": ["error", { allowEscape: true }],
    },
  },
  {
    // Tests read JSON bodies and fixtures as `any` and assert on them: a wrong shape fails the test.
    files: ["test/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Stubs of async ports are written async: a throw in one must stay a rejection, as in the real port.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Plain JavaScript (agents, launchers, scripts) is in no tsconfig: the rules without types apply.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs", "bin/escalate", "test/support/agents/stand-ins/{aider,claude,codex}"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  prettier,
);
