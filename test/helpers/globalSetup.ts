// vitest global setup: builds the embedded store's template data directory once before any
// test file runs, so test stores open from a copy in well under a second.

import { ensureTemplate } from './template.js';

export default async function setup(): Promise<void> {
  await ensureTemplate();
}
