// The contract's call validation bound to this machine: its own rule for absolute paths and config.toml's options.
// The HTTP routes use it, and the Electron main process through core/app: one gate for both transports.
import path from 'node:path';
import { CONFIG_SCHEMA } from '../config/schema.js';
import { apiCallValidator } from '../contract/validation.js';

export const validateApiCall = apiCallValidator({ isAbsolute: path.isAbsolute, options: CONFIG_SCHEMA });
