import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../sdk/index.js';
import { formatLiveEvent } from '../../cli/commands/tail.js';
import { usd } from '../../cli/usd.js';

// gatewayctl prints every USD amount one way: plain decimals whatever the size, so an
// embeddings call's cost of a few hundred-millionths of a dollar never reads as 4.00e-8.

describe('usd', () => {
  it('keeps the smallest costs in plain decimals, to four significant digits and at most eight places', () => {
    expect(usd(4e-8)).toBe('$0.00000004');
    expect(usd(1.35e-7)).toBe('$0.00000014');
    expect(usd(0.0000165)).toBe('$0.0000165');
    expect(usd(0.000016543219)).toBe('$0.00001654');
    expect(usd(0.00123456)).toBe('$0.001235');
  });

  it('shows at least cents and at most four decimals from a hundredth of a dollar up', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(2.5)).toBe('$2.50');
    expect(usd(0.075)).toBe('$0.075');
    expect(usd(0.0001)).toBe('$0.0001');
    expect(usd(12.3456)).toBe('$12.3456');
    expect(usd(0.1 + 0.2)).toBe('$0.30');
    expect(usd(1234.56789)).toBe('$1,234.5679');
    expect(usd('0.5')).toBe('$0.50');
  });

  it('never shows a real amount too small for eight places as free, nor a non-number as an amount', () => {
    expect(usd(1e-10)).toBe('<$0.00000001');
    expect(usd(Number.NaN)).toBe('-');
  });
});

describe('tail line', () => {
  const event: LiveEvent = {
    id: 'req_1',
    createdAt: '2025-01-31T14:05:09.000Z',
    provider: 'openai',
    model: 'text-embedding-3-small',
    taskType: null,
    complexity: null,
    routedBy: 'user-override',
    cached: false,
    status: 'ok',
    latencyMs: 2,
    inputTokens: 2,
    outputTokens: 0,
    cost: 4e-8,
    preview: 'a',
    endpoint: 'embeddings',
  };

  it("prints an embeddings call's cost in plain decimals", () => {
    expect(formatLiveEvent(event)).toBe(
      '2025-01-31 14:05:09  req_1  openai/text-embedding-3-small  embeddings  -  ok  2 ms  2->0 tok  $0.00000004 "a"',
    );
  });

  it('prints "-" for the model of a call no provider served, and its zero cost as the other commands do', () => {
    const line = formatLiveEvent({
      ...event,
      provider: null,
      model: null,
      status: 'error',
      cost: 0,
      endpoint: 'chat',
      routedBy: 'user-override',
    });
    expect(line).toBe('2025-01-31 14:05:09  req_1  -  user-override  -  error  2 ms  2->0 tok  $0.00 "a"');
  });
});
