import type { Command } from 'commander';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printRecord } from '../output.js';

/** "3d 4h 5m 6s", leaving out the leading units that are zero. */
function formatUptime(seconds: number): string {
  const total = Math.floor(seconds);
  const units: Array<[string, number]> = [['d', Math.floor(total / 86400)], ['h', Math.floor(total / 3600) % 24], ['m', Math.floor(total / 60) % 60]];
  const firstNonZero = units.findIndex(([, n]) => n > 0);
  const shown = firstNonZero === -1 ? [] : units.slice(firstNonZero);
  return [...shown.map(([unit, n]) => `${n}${unit}`), `${total % 60}s`].join(' ');
}

/**
 * The exit code for a gateway that answers but reports itself degraded (database or shared
 * rate-limit Redis unreachable): distinct from 1, "could not ask", so a liveness script can tell
 * the two apart, and non-zero, so `gatewayctl health && deploy` stops on it.
 */
export const EXIT_DEGRADED = 3;

export function registerHealthCommand(program: Command): void {
  program
    .command('health')
    .description(`Show whether the gateway, its database and its rate-limit Redis are up (no token needed); exits ${EXIT_DEGRADED} when degraded`)
    .action(async (_opts, command: Command) => {
      const health = await clientFor(command, { auth: false }).system.health.query();
      if (health.status !== 'ok') process.exitCode = EXIT_DEGRADED;
      if (globalOptions(command).json) return printJson(health);
      printRecord({
        STATUS: health.status,
        MODE: health.mode,
        VERSION: health.version,
        DATABASE: health.database.reachable ? 'reachable' : 'unreachable',
        'RATE LIMITS': health.rateLimits.shared ? `shared through Redis (${health.rateLimits.reachable ? 'reachable' : 'unreachable'})` : 'per process',
        UPTIME: formatUptime(health.uptimeSeconds),
      });
    });
}
