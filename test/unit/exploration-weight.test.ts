import { describe, expect, it } from 'vitest';
import { explorationWeight } from '../../server/gateway/routing/engine.js';

// Which non-top candidate exploration favours.

const top = { price: 1 };
const MIN = 10;

describe('explorationWeight', () => {
  it('favours candidates short of evidence, and cheaper ones over pricier ones', () => {
    expect(explorationWeight({ samples: 0, price: 0.5 }, top, MIN)).toBe(1);
    expect(explorationWeight({ samples: 0, price: 4 }, top, MIN)).toBe(0.25);
    expect(explorationWeight({ samples: 20, price: 0.5 }, top, MIN)).toBeCloseTo(0.25 / 3, 12);
  });

  it('samples a model without a price (its calls are logged at cost 0) as a pricier one, not as the cheapest', () => {
    expect(explorationWeight({ samples: 0, price: Number.NaN }, top, MIN)).toBe(0.25);
    expect(explorationWeight({ samples: 0, price: Number.POSITIVE_INFINITY }, top, MIN)).toBe(0.25);
    expect(explorationWeight({ samples: 0, price: Number.NaN }, top, MIN)).toBeLessThan(
      explorationWeight({ samples: 0, price: 0.5 }, top, MIN),
    );
  });
});
