// The routing labels: the lists a request's task, complexity and routing reason are drawn from.
// They are part of the wire format (`_gateway.routing`, the hints), so they live in
// contracts/routing.ts, which the SDK shares; re-exported here for the core (types.ts and the
// body schema both use them without importing each other).

export {
  COMPLEXITIES,
  ROUTED_BY,
  TASK_TYPES,
  type Complexity,
  type RoutedBy,
  type TaskType,
} from '../../contracts/routing.js';
