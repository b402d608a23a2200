// The routing vocabulary clients see: the task types and complexities of `_gateway.routing`, who
// routed a call (`routedBy`), and the task types a client may pre-label (`routing_hint`).

export const TASK_TYPES = ['coding', 'creative', 'summarization', 'qa', 'general', 'vision'] as const;
export type TaskType = (typeof TASK_TYPES)[number];
export const COMPLEXITIES = ['simple', 'medium', 'complex'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];
export const ROUTED_BY = [
  'classification',
  'routing-hint',
  'user-override',
  'ab-test',
  'adaptive',
  'exploration',
] as const;
export type RoutedBy = (typeof ROUTED_BY)[number];

/** The task types a client may pre-label (`routing_hint`, x-gateway-task-type): every one but vision, which is detected. */
export const ROUTING_HINTS = ['coding', 'creative', 'summarization', 'qa', 'general'] as const;
export type RoutingHint = (typeof ROUTING_HINTS)[number];
