import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../core/config/loadConfig.js';

/** The ConfigError that `text` is rejected with; fails the test when it is accepted. */
export function configErrorOf(text: string): ConfigError {
  try {
    parseConfig(text, 'config.toml');
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error;
  }
  assert.fail(`expected the config to be rejected:\n${text}`);
}
