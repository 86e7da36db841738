import { Command, CommanderError } from 'commander';
import { ConfigError, configErrorLines } from '../core/app/index.js';
import { registerAskCommand } from './commands/ask.js';
import { registerChunkCommand } from './commands/chunk.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerVaultCommands } from './commands/vaultCommands.js';
import { registerServeCommand } from './commands/serve.js';
import { registerWatchCommand } from './commands/watch.js';
import { fail } from './output.js';
import packageJson from '../package.json' with { type: 'json' };

/** Exit code of a command line that cannot be run as given (an unknown option, a bad value, an empty query). */
export const USAGE_EXIT_CODE = 2;

const { version } = packageJson;

const program = new Command('cairn')
  .description('Cairn: ask your Markdown notes, offline. Every command takes --vault, --data-dir and --config.')
  .version(version, '-V, --version', 'print the version')
  // A usage error is one line ("cairn: error: …") and a hint, not the whole help.
  .configureOutput({ outputError: (message, write) => write(`cairn: ${oneUsefulLine(message)}`) })
  .exitOverride();

registerVaultCommands(program);
registerWatchCommand(program);
registerServeCommand(program);
registerChunkCommand(program);
registerEvalCommand(program);
registerAskCommand(program);

program.showHelpAfterError('(see "cairn --help")');
for (const command of program.commands) {
  command.showHelpAfterError(`(see "cairn ${command.name()} --help")`);
}

/**
 * Commander wraps our value checks' messages ("--k expects a whole number…") in its own ("option '--k <n>' argument
 * 'x' is invalid. …"); ours already name the option and the value, so only they are kept.
 */
function oneUsefulLine(message: string): string {
  return message.replace(/^error: (?:option '[^']*' argument '[^']*' is invalid|command-argument value '[^']*' is invalid for argument '[^']*')\. /s, 'error: ');
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    const informational = error.code === 'commander.version' || error.code === 'commander.helpDisplayed' || error.code === 'commander.help';
    process.exit(informational ? error.exitCode : USAGE_EXIT_CODE);
  }
  if (error instanceof ConfigError) {
    // Every problem of the file, one a line; a config that cannot be used is a usage error, like a bad option.
    for (const line of configErrorLines(error)) process.stderr.write(`cairn: error: config: ${line}\n`);
    process.exit(USAGE_EXIT_CODE);
  }
  fail(error instanceof Error ? error.message : String(error));
}
