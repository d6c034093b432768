// The s3rver of the file tests, run as its own process (started by test/files/s3.ts) so that
// its internal errors stay out of the test runner's process.
//
// Usage: node s3rverProcess.mjs <port, 0 for any> <directory> <bucket>
// Prints `{"port":N}` on stdout once it listens. SIGTERM ends it at once (the default action),
// as a store that goes down; a closed stdin means the test process is gone, and so is this one.

// s3rver is CommonJS; its default export is the class.
import S3rver from 's3rver';

const [portArg, directory, bucket] = process.argv.slice(2);
if (portArg === undefined || !directory || !bucket) {
  process.stderr.write('usage: s3rverProcess.mjs <port> <directory> <bucket>\n');
  process.exit(2);
}

const server = new S3rver({ port: Number(portArg), address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();

// s3rver writes request bodies to disk through streams with no 'error' listener: an object
// deleted while an aborted upload is still opening its file throws ENOENT uncaught. That is
// s3rver's own bookkeeping, not the code under test, so it is reported and serving goes on.
const report = (err) => process.stderr.write(`s3rver: ${err?.stack ?? err}\n`);
process.on('uncaughtException', report);
process.on('unhandledRejection', report);

for (const gone of ['end', 'close']) process.stdin.on(gone, () => process.exit(0));
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ port })}\n`);
