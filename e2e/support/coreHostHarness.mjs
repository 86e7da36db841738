// Runs the built utility-process entry (electron/dist/coreHost.js) in plain Node, without tsx: Electron's
// process.parentPort is stood in for by this process's IPC channel to the test. Usage: fork(harness, [coreHost.js]).
process.parentPort = {
  on: (_event, listener) => process.on('message', (data) => listener({ data })),
  postMessage: (message) => process.send(message),
};
await import(process.argv[2]);
