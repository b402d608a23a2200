import type { ZodError } from 'zod';

/** "name: Too small: expected string to have >=1 characters; variants: ..." (first five issues). */
export function describeZodError(err: ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}
