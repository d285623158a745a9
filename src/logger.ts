import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; one line per event. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Bearer tokens and cookies never reach the logs.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    destination,
  );
}
