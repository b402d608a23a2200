// The live tap's event (GET /v1/analytics/live, the SDK's `gw.live.subscribe()`, `gatewayctl tail`).

/** One completed request as the live tap shows it. */
export interface LiveEvent {
  /** Request id. */
  id: string;
  createdAt: string;
  provider: string | null;
  model: string | null;
  taskType: string | null;
  complexity: string | null;
  routedBy: string;
  cached: boolean;
  status: string;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of the request's upstream call costs, USD. */
  cost: number;
  /** Start of the last user message (an embeddings call's first input); null when there is none. */
  preview: string | null;
  /** chat or embeddings: the endpoint called. */
  endpoint: 'chat' | 'embeddings';
}
