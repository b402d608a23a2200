// Rows that only the gateway's own cycles make, from weeks of judged traffic (a cost migration, a
// regression event): tests that need one to exist, without playing those weeks, write it as the
// cycles write it. `query` runs one statement on the gateway's database.

type Query = (text: string, values: unknown[]) => Promise<unknown>;

/** An active cost migration of `tenantId` on the cell `taskType`/simple, from gpt-4o to gpt-4o-mini. */
export async function writeCostMigration(query: Query, id: string, tenantId: string, taskType = 'qa'): Promise<void> {
  const evidence = {
    fromAvgScore: 4.5,
    fromSamples: 40,
    fromCostPerCallUsd: 0.01,
    fromCallsLast30d: 1500,
    toAvgScore: 4.4,
    toSamples: 40,
    toCostPerCallUsd: 0.001,
    tolerance: 0.3,
  };
  await query(
    `insert into cost_migrations (id, tenant_id, task_type, complexity, from_provider, from_model, to_provider,
       to_model, status, evidence, projected_monthly_savings_usd, grace_until)
     values ($1, $2, $3, 'simple', 'openai', 'gpt-4o', 'openai', 'gpt-4o-mini', 'active', $4, 12.5, now() + interval '7 days')`,
    [id, tenantId, taskType, JSON.stringify(evidence)],
  );
}

/** An open regression event of `tenantId`: gpt-4o-mini dropped from 4.5 to 3.2 on qa/simple. */
export async function writeRegressionEvent(
  query: Query,
  id: string,
  tenantId: string,
  exampleRequestIds: string[] = [],
): Promise<void> {
  await query(
    `insert into regression_events (id, tenant_id, task_type, complexity, provider, model, sample_count,
       original_avg_score, replay_avg_score, score_delta, severity, example_request_ids)
     values ($1, $2, 'qa', 'simple', 'openai', 'gpt-4o-mini', 20, 4.5, 3.2, -1.3, 'critical', $3)`,
    [id, tenantId, JSON.stringify(exampleRequestIds)],
  );
}
