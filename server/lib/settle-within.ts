// Bounded waits on work that may never settle (a database that stopped answering).

/**
 * `work`'s value if it settles within `ms`; otherwise (or if it fails) not ok. A failure that comes
 * later is handled here, so a read nobody waits for any more cannot go unhandled.
 */
export function settleWithin<T>(work: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false }), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      () => {
        clearTimeout(timer);
        resolve({ ok: false });
      },
    );
  });
}
