import { router } from './init.js';
import { lockInputCoercion } from './strict-inputs.js';
import { abTestsRouter } from '../modules/ab-tests/router.js';
import { analyticsRouter } from '../modules/analytics/router.js';
import { auditRouter } from '../modules/audit/router.js';
import { cacheRouter } from '../modules/cache/router.js';
import { feedbackRouter } from '../modules/feedback/router.js';
import { providersRouter } from '../modules/providers/router.js';
import { pricingRouter } from '../modules/pricing/router.js';
import { schedulerRouter } from '../modules/scheduler/router.js';
import { spendRouter } from '../modules/spend/router.js';
import { systemRouter } from '../modules/system/router.js';
import { tokensRouter } from '../modules/tokens/router.js';
import { guardrailsRouter } from '../modules/guardrails/router.js';
import { budgetsRouter } from '../modules/budgets/router.js';
import { evalsRouter } from '../modules/evals/router.js';
import { promptsRouter } from '../modules/prompts/router.js';
import { rolloutsRouter } from '../modules/prompts/rollout-router.js';
import { capturesRouter } from '../modules/captures/router.js';
import { costMigrationsRouter } from '../modules/cost-migrations/router.js';
import { regressionRouter } from '../modules/regression/router.js';
import { samlRouter } from '../modules/auth/saml-router.js';
import { teamRouter } from '../modules/team/router.js';
import { providerKeysRouter } from '../modules/provider-keys/router.js';
import { customProvidersRouter } from '../modules/custom-providers/router.js';
import { billingRouter } from '../modules/billing/router.js';

export const appRouter = router({
  system: systemRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  providers: providersRouter,
  abTests: abTestsRouter,
  feedback: feedbackRouter,
  scheduler: schedulerRouter,
  analytics: analyticsRouter,
  cache: cacheRouter,
  spend: spendRouter,
  pricing: pricingRouter,
  guardrails: guardrailsRouter,
  budgets: budgetsRouter,
  evals: evalsRouter,
  prompts: promptsRouter,
  rollouts: rolloutsRouter,
  captures: capturesRouter,
  costMigrations: costMigrationsRouter,
  regression: regressionRouter,
  team: teamRouter,
  saml: samlRouter,
  providerKeys: providerKeysRouter,
  customProviders: customProvidersRouter,
  billing: billingRouter,
});

export type AppRouter = typeof appRouter;

lockInputCoercion(appRouter);
