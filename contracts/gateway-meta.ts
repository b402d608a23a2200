import type { Complexity, RoutedBy, TaskType } from './routing.js';

// `_gateway`: what the gateway adds to every chat and embeddings answer (the last chunk of a
// stream): request id, who served, latency, cost and how the call was routed (SPEC.md chat response).

export interface GatewayRouting {
  taskType: TaskType | null;
  complexity: Complexity | null;
  routedBy: RoutedBy;
  usedFallback: boolean;
  usedLlmFallback: boolean;
  abTestId?: string;
  variant?: string;
}

export interface GatewayMeta {
  requestId: string;
  provider: string;
  model: string;
  /** Milliseconds, one decimal. */
  latencyMs: number;
  cached: boolean;
  /** Only on cache hits. */
  cacheType?: 'exact' | 'semantic';
  /** USD. */
  cost: number;
  routing: GatewayRouting;
  /** The built-in simulator played the provider (no provider key is set); absent otherwise. */
  simulated?: true;
}
