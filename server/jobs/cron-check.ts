import { createRequire } from 'node:module';

// pg-boss fires schedules from its timekeeper: every cron-monitor interval (30 s), the node that
// holds the slot asks, for every schedule, whether it fell due within the last minute, and it
// answers with cron-parser's `prev()`, which walks back through luxon dates: 6 to 30 ms per
// schedule, a whole-event-loop stall of about 100 ms with this gateway's schedules, on a process
// that is serving requests. The same question is answered here from the expression's fields, parsed
// once: does the minute that started within the last 60 s match? A cron time is a whole minute, so
// that minute is the only one that can be due. Expressions this check does not read (time zones
// other than UTC, `L`, `#`, seconds) keep pg-boss's own answer.

type Fields = {
  minute: readonly number[];
  hour: readonly number[];
  dayOfMonth: readonly (number | 'L')[];
  month: readonly number[];
  dayOfWeek: readonly number[];
  second: readonly number[];
};
type CronParser = { parseExpression(cron: string, options?: { tz?: string }): { fields: Fields } };
type ShouldSendIt = (this: { clockSkew: number }, cron: string, tz: string) => boolean;
interface Matcher {
  minute: Set<number>;
  hour: Set<number>;
  dayOfMonth: Set<number>;
  month: Set<number>;
  dayOfWeek: Set<number>;
  /** Both day fields restricted: cron fires on either (vixie cron's rule, cron-parser's too). */
  eitherDay: boolean;
}

const load = createRequire(import.meta.url);

function matcherOf(parser: CronParser, cron: string): Matcher | null {
  // Every field spelled out by the expression: L, W and # (and a seconds field) are left to pg-boss.
  const parts = cron.trim().split(/\s+/);
  if (parts.length !== 5 || /[LW#]/i.test(cron)) return null;
  const f = parser.parseExpression(cron, { tz: 'UTC' }).fields;
  if (f.dayOfMonth.some((d) => typeof d !== 'number')) return null;
  const dayOfWeek = new Set(f.dayOfWeek.map((d) => d % 7));
  const domRestricted = parts[2] !== '*' && parts[2] !== '?';
  const dowRestricted = parts[4] !== '*' && parts[4] !== '?';
  return {
    minute: new Set(f.minute),
    hour: new Set(f.hour),
    dayOfMonth: new Set(f.dayOfMonth as number[]),
    month: new Set(f.month),
    dayOfWeek,
    eitherDay: domRestricted && dowRestricted,
  };
}

/** Whether the UTC minute holding `at` is one of the expression's times. */
export function matchesMinute(m: Matcher, at: Date): boolean {
  if (!m.minute.has(at.getUTCMinutes()) || !m.hour.has(at.getUTCHours()) || !m.month.has(at.getUTCMonth() + 1))
    return false;
  const dom = m.dayOfMonth.has(at.getUTCDate());
  const dow = m.dayOfWeek.has(at.getUTCDay());
  return m.eitherDay ? dom || dow : dom && dow;
}

/** pg-boss's answer for `cron` at database time `now`, from fields (null: not one this check reads). */
export function dueWithinLastMinute(
  parser: CronParser,
  cache: Map<string, Matcher | null>,
  cron: string,
  now: number,
): boolean | null {
  let m = cache.get(cron);
  if (m === undefined) {
    m = matcherOf(parser, cron);
    cache.set(cron, m);
  }
  if (m === null) return null;
  return matchesMinute(m, new Date(Math.floor(now / 60_000) * 60_000));
}

// cron-parser is pg-boss's own dependency: resolved from pg-boss, so it is the copy pg-boss uses.
const fromPgBoss = createRequire(load.resolve('pg-boss'));
const Timekeeper = fromPgBoss('./timekeeper') as { prototype: { shouldSendIt: ShouldSendIt } };
/** pg-boss's own check, kept for what the field check does not read (and for its test). */
export const pgBossShouldSendIt: ShouldSendIt = Timekeeper.prototype.shouldSendIt;
let installed = false;

/** Puts the field check in front of pg-boss's timekeeper (once per process). */
export function installCronCheck(): void {
  if (installed) return;
  installed = true;
  const parser = fromPgBoss('cron-parser') as CronParser;
  const cache = new Map<string, Matcher | null>();
  Timekeeper.prototype.shouldSendIt = function (cron, tz) {
    if (tz === 'UTC') {
      const due = dueWithinLastMinute(parser, cache, cron, Date.now() + (this.clockSkew ?? 0));
      if (due !== null) return due;
    }
    return pgBossShouldSendIt.call(this, cron, tz);
  };
}

/** The parser pg-boss uses (for the test that holds the two checks to the same answers). */
export function pgBossCronParser(): CronParser {
  return fromPgBoss('cron-parser') as CronParser;
}
