import { describe, expect, it } from 'vitest';
import type { Logger } from '../../server/lib/logger.js';
import { createMailer } from '../../server/modules/auth/mailer.js';
import { safeReturnPath } from '../../server/modules/auth/return-path.js';

// Without SMTP, sign-in mail reaches the log in development only; `return` stays on this deployment.

function recordingLogger() {
  const lines: Array<{ level: string; obj: unknown; msg: string }> = [];
  const at = (level: string) => (obj: unknown, msg: string) => lines.push({ level, obj, msg });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger };
}

describe('sign-in mail without SMTP', () => {
  const mail = {
    to: 'ada@example.com',
    subject: 'Your sign-in link',
    text: 'https://gw.test/auth/magic-link/verify?token=secret',
  };

  it('is written to the log in development', async () => {
    const { lines, logger } = recordingLogger();
    await createMailer({ from: 'a@b', development: true, logger }).send(mail);
    expect(JSON.stringify(lines)).toContain('token=secret');
  });

  it('is not sent, and the link never logged, elsewhere', async () => {
    const { lines, logger } = recordingLogger();
    await createMailer({ from: 'a@b', development: false, logger }).send(mail);
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});

describe('sign-in return path', () => {
  const base = 'https://gw.example.com';
  it('keeps paths and same-origin URLs, as paths', () => {
    expect(safeReturnPath('/v1/models?x=1#y', base)).toBe('/v1/models?x=1#y');
    expect(safeReturnPath('https://gw.example.com/app', base)).toBe('/app');
    expect(safeReturnPath(undefined, base)).toBeNull();
  });
  it('refuses every other place', () => {
    for (const evil of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      'javascript:alert(1)',
      'https://gw.example.com.evil.example/',
      'http://gw.example.com/',
      'app',
      '/\tx',
    ])
      expect(() => safeReturnPath(evil, base), evil).toThrow(/return/);
  });
});
