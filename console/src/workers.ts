// Monaco's web workers, for GraphiQL's editors and the schema editor. The `?worker` imports
// make Vite bundle each worker as a file of its own (served from /console/assets, allowed by
// the console's CSP as 'self'). Written here rather than imported from graphiql's
// setup-workers/vite, whose imports Vite's dev-server dependency optimiser cannot read.

import type { Environment } from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker.js?worker';
import GraphQLWorker from 'monaco-graphql/esm/graphql.worker.js?worker';

window.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    switch (label) {
      case 'json':
        return new JsonWorker();
      case 'graphql':
        return new GraphQLWorker();
      default:
        return new EditorWorker();
    }
  },
} satisfies Environment;
