import type { Command } from 'commander';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printLine, printRecord, shortDate, yesNo } from '../output.js';

export function registerBillingCommand(program: Command): void {
  const billing = program.command('billing').description("The workspace's subscription (multi-tenant mode)");

  billing
    .command('status')
    .description('The tier, the subscription status and the end of the paid period')
    .action(async (_opts, command: Command) => {
      const s = await clientFor(command).billing.subscription.query();
      if (globalOptions(command).json) return printJson(s);
      printRecord({
        TIER: s.tier,
        SUBSCRIPTION: s.status === 'none' ? 'none' : `${s.subscriptionTier} (${s.status})`,
        'PERIOD END': shortDate(s.currentPeriodEnd),
        'ENDS AT PERIOD END': yesNo(s.cancelAtPeriodEnd),
      });
    });

  billing
    .command('checkout <tier>')
    .description('Start buying a tier (team, enterprise, intelligence): prints the checkout URL to open')
    .action(async (tier: 'team' | 'enterprise' | 'intelligence', _opts, command: Command) => {
      const session = await clientFor(command).billing.checkout.mutate({ tier });
      if (globalOptions(command).json) return printJson(session);
      printLine(session.url);
    });

  billing
    .command('portal')
    .description('Prints the URL of the billing portal (payment method, invoices, cancel)')
    .action(async (_opts, command: Command) => {
      const session = await clientFor(command).billing.portal.mutate({});
      if (globalOptions(command).json) return printJson(session);
      printLine(session.url);
    });
}
