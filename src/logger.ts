import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

/**
 * Structured JSON logs on stdout, one line per event; `pretty` (development on a terminal) prints
 * them as readable coloured lines instead.
 */
export function createLogger(level: string, destination?: DestinationStream, { pretty = false } = {}): Logger {
  const stream = destination ?? (pretty ? PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'requestId' }) : undefined);
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Bearer tokens and cookies never reach the logs.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    stream,
  );
}

/** Development on a terminal reads better pretty-printed; anything else (files, collectors) gets JSON. */
export function wantsPrettyLogs(env: string): boolean {
  return env === 'development' && process.stdout.isTTY === true;
}
