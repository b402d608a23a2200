// The routing labels: the lists a request's task, complexity and routing reason are drawn from.
// A leaf module (it imports nothing) so that the body schema (chat-body-schema.ts) and the core's
// vocabulary (types.ts, which re-exports these) can both use them without importing each other.

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
