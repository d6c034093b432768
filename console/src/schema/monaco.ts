// Monaco as the schema page uses it: the same editor core GraphiQL loads (so the browser loads
// it once), with GraphQL syntax highlighting under a language id of our own, so the GraphQL
// language service GraphiQL installs for operations never checks schema text.

import * as monaco from 'monaco-editor/esm/vs/editor/edcore.main.js';
import { conf, language } from 'monaco-editor/esm/vs/basic-languages/graphql/graphql.js';

export const SDL_LANGUAGE = 'tessera-sdl';

if (!monaco.languages.getLanguages().some((l) => l.id === SDL_LANGUAGE)) {
  monaco.languages.register({ id: SDL_LANGUAGE, extensions: ['.graphql'], aliases: ['GraphQL schema'] });
  monaco.languages.setMonarchTokensProvider(SDL_LANGUAGE, language);
  monaco.languages.setLanguageConfiguration(SDL_LANGUAGE, conf);
}

export { monaco };
