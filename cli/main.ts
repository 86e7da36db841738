import { Command, CommanderError } from 'commander';
import { ConfigError } from '../core/config/loadConfig.js';
import { registerAskCommand } from './commands/ask.js';
import { registerChunkCommand } from './commands/chunk.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerVaultCommands } from './commands/vaultCommands.js';
import { registerServeCommand } from './commands/serve.js';
import { registerWatchCommand } from './commands/watch.js';
import { fail } from './output.js';

const program = new Command('cairn')
  .description('Cairn: ask your Markdown notes, offline. Every command takes --vault, --data-dir and --config.')
  .showHelpAfterError()
  .exitOverride();

registerVaultCommands(program);
registerWatchCommand(program);
registerServeCommand(program);
registerChunkCommand(program);
registerEvalCommand(program);
registerAskCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof ConfigError) fail(`config: ${error.message}`);
  fail(error instanceof Error ? error.message : String(error));
}
