// Loaded with `node --import`: writes the URL of every module the process resolves, one per
// line, to the file MODULES_FILE names (the hooks run on Node's loader thread).
import { register } from 'node:module';

register('./recordModulesHooks.mjs', import.meta.url, { data: { file: process.env.MODULES_FILE } });
