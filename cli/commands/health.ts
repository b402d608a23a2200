import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { setExitCode } from '../io.js';
import { printJson, printRecord } from '../output.js';

type Health = RouterOutputs['system']['health'];

/** "3d 4h 5m 6s", leaving out the leading units that are zero. */
function formatDuration(seconds: number): string {
  const total = Math.floor(seconds);
  const units: Array<[string, number]> = [
    ['d', Math.floor(total / 86400)],
    ['h', Math.floor(total / 3600) % 24],
    ['m', Math.floor(total / 60) % 60],
  ];
  const firstNonZero = units.findIndex(([, n]) => n > 0);
  const shown = firstNonZero === -1 ? [] : units.slice(firstNonZero);
  return [...shown.map(([unit, n]) => `${n}${unit}`), `${total % 60}s`].join(' ');
}

/**
 * The exit code for a gateway that answers but reports itself degraded (database unreachable, log
 * writer unable to commit, or shared rate-limit Redis unreachable): distinct from 1, "could not
 * ask", so a liveness script can tell the two apart, and non-zero, so `gatewayctl health && deploy`
 * stops on it.
 */
export const EXIT_DEGRADED = 3;

/** What in the health answer makes the gateway degraded; every cause the gateway reports has a row below too. */
function degradedBecause(health: Health): string[] {
  const reasons: string[] = [];
  if (!health.database.reachable) reasons.push('database unreachable');
  if (health.logs.failingForSeconds !== null) reasons.push('log writer cannot commit');
  if (health.rateLimits.shared && health.rateLimits.reachable === false) reasons.push('rate-limit Redis unreachable');
  return reasons;
}

const rows = (n: number) => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'} queued`;

/** "committing", or how long commits have failed and how many rows wait in this node's memory. */
function logWriterState({ queuedRows, failingForSeconds }: Health['logs']): string {
  if (failingForSeconds !== null) return `failing for ${formatDuration(failingForSeconds)} (${rows(queuedRows)})`;
  return queuedRows > 0 ? `committing (${rows(queuedRows)})` : 'committing';
}

/** The health table: a degraded status names its causes, so the table never says "degraded" without why. */
export function healthRecord(health: Health): Record<string, string> {
  const reasons = health.status === 'ok' ? [] : degradedBecause(health);
  return {
    STATUS: reasons.length ? `${health.status}: ${reasons.join(', ')}` : health.status,
    MODE: health.mode,
    VERSION: health.version,
    DATABASE: health.database.reachable ? 'reachable' : 'unreachable',
    'LOG WRITER': logWriterState(health.logs),
    'RATE LIMITS': health.rateLimits.shared
      ? `shared through Redis (${health.rateLimits.reachable ? 'reachable' : 'unreachable'})`
      : 'per process',
    UPTIME: formatDuration(health.uptimeSeconds),
  };
}

export function registerHealthCommand(program: Command): void {
  program
    .command('health')
    .description(
      `Show whether the gateway, its database, its log writer and its rate-limit Redis are up (no token needed); exits ${EXIT_DEGRADED} when degraded`,
    )
    .action(async (_opts, command: Command) => {
      const health = await clientFor(command, { auth: false }).system.health.query();
      if (health.status !== 'ok') setExitCode(EXIT_DEGRADED);
      if (globalOptions(command).json) return printJson(health);
      printRecord(healthRecord(health));
    });
}
