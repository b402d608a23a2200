import { main } from './index.js';

// The gatewayctl command: runs the CLI on the process's arguments and streams.

// `gatewayctl ... | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv);
