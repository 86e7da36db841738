// A child process that does nothing until its parent goes: for tests of how worker processes are started.
process.on('disconnect', () => process.exit(0));
setInterval(() => {}, 60_000);
