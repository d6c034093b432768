// Types for the Monaco entry points the console imports by path (the package types only its
// main entry): the editor core without the bundled languages, and the GraphQL tokenizer.

declare module 'monaco-editor/esm/vs/editor/edcore.main.js' {
  export * from 'monaco-editor';
}

declare module 'monaco-editor/esm/vs/basic-languages/graphql/graphql.js' {
  import type { languages } from 'monaco-editor';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}
