// Jest raises Error.stackTraceLimit to 100 in the test context and in the worker's own realm, and
// formats every captured frame through source maps whenever an error's `stack` is read (Node's streams
// and GraphQL read it on each error they make). Node's default of 10 frames keeps failures readable at a
// fraction of that cost. The worker's realm is reached through an error Node itself makes.
import fs from 'node:fs';

Error.stackTraceLimit = 10;
try {
  fs.statSync('/nonexistent/stack-trace-limit');
} catch (error) {
  if (typeof error?.constructor?.stackTraceLimit === 'number') error.constructor.stackTraceLimit = 10;
}
