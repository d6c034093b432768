// Entry point of the web console. Monaco's workers (the editor of GraphiQL and of the schema
// page) are set up first, so every editor finds them.

import './workers';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
