import type { AbVariant } from '../../db/schema/index.js';
import { GatewayError } from '../../lib/errors.js';

// A test's cell and how cells overlap. A null dimension means "any": a test on (qa, any) takes
// every qa request whatever its complexity, and a test on (any, any) takes every request.

export interface Cell {
  taskType: string | null;
  complexity: string | null;
}

/** Whether one request could fall in both cells: each dimension equal, or null on either side. */
export function cellsOverlap(a: Cell, b: Cell): boolean {
  const meets = (x: string | null, y: string | null) => x === null || y === null || x === y;
  return meets(a.taskType, b.taskType) && meets(a.complexity, b.complexity);
}

export function describeCell(cell: Cell): string {
  return `${cell.taskType ?? 'any'}/${cell.complexity ?? 'any'}`;
}

/**
 * The test's cell: the one every variant is scoped to. Variants scoped to different cells would
 * make a test with one arm per cell, which compares nothing, so they are refused (400).
 */
export function cellOf(variants: AbVariant[]): Cell {
  const cellOfVariant = (v: AbVariant): Cell => ({ taskType: v.taskType ?? null, complexity: v.complexity ?? null });
  const first = variants[0] ? cellOfVariant(variants[0]) : { taskType: null, complexity: null };
  for (const [i, v] of variants.entries()) {
    const own = cellOfVariant(v);
    if (own.taskType !== first.taskType || own.complexity !== first.complexity) {
      throw new GatewayError(
        'invalid_request_error',
        `variants.${i}: scoped to cell ${describeCell(own)} but variants.0 to ${describeCell(first)}; every variant of a test must name the same taskType and complexity (a field left out means any)`,
      );
    }
  }
  return first;
}
