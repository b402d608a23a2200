import { z } from 'zod';
import { UNPRINTABLE } from '../../contracts/unprintable.js';

// A name people give a thing (a token, an A/B test) and read back in tables, terminals and
// dashboards: trimmed, bounded, and one line of printable text. A control or direction-override
// character in a name could break a table row or drive the terminal of whoever lists it.

const UNPRINTABLE_CHAR = new RegExp(`[${UNPRINTABLE}]`);

export function displayName(maxLength: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(maxLength)
    .refine((name) => !UNPRINTABLE_CHAR.test(name), {
      message: 'must be one line of printable text (no control characters, line breaks or direction overrides)',
    });
}
