// Bounded waits on work that may never settle (a database that stopped answering).

/**
 * `work`'s value if it settles within `ms`; otherwise not ok, with its error when it failed in
 * time (none when the time ran out). A failure that comes later is handled here, so work nobody
 * waits for any more cannot go unhandled.
 */
export function settleWithin<T>(
  work: Promise<T>,
  ms: number,
): Promise<{ ok: true; value: T } | { ok: false; error?: unknown }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false }), Math.max(0, ms));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ ok: false, error });
      },
    );
  });
}
