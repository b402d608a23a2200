import { pino, type Logger } from 'pino';

// Structured JSON logs. Prompts, completions and secrets are never logged: the redact paths are a
// second line of defence for fields that might carry them.
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        'authorization',
        'headers.authorization',
        '*.apiKey',
        '*.token',
        'token',
        'apiKey',
        'messages',
        '*.messages',
      ],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
