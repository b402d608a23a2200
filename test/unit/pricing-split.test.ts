// Cost as the provider's invoice says it: each kind of token at its rate (pricing.ts), a usage split
// into those kinds (usage.ts), and negotiated prices over the list prices (price-book.ts).
import { describe, expect, it } from 'vitest';
import { PriceBook, overridePrice } from '../../server/gateway/price-book.js';
import { toUsage as anthropicUsage } from '../../server/providers/anthropic/response.js';
import { toUsage as geminiUsage } from '../../server/providers/gemini/response.js';
import { costOfTokens, priceFor, ratesFor, type TokenSplit } from '../../server/providers/pricing.js';
import { tokenSplit, withBillingDetail } from '../../server/providers/usage.js';

const split = (s: Partial<TokenSplit>): TokenSplit => ({
  input: 0,
  cachedInput: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  output: 0,
  serviceTier: null,
  ...s,
});

describe('list prices', () => {
  it('carry every rate and its date', () => {
    expect(priceFor('gpt-4o')).toMatchObject({ input: 2.5, cachedInput: 1.25, output: 10, asOf: '2026-11-29' });
    expect(priceFor('gpt-4o')!.serviceTiers!['priority']).toMatchObject({
      input: 4.25,
      cachedInput: 2.125,
      output: 17,
    });
    expect(priceFor('gpt-5')!.serviceTiers!['flex']).toMatchObject({ input: 0.625, cachedInput: 0.0625, output: 5 });
    // Anthropic: reads 0.1x, 5-minute writes 1.25x, 1-hour writes 2x the input rate.
    expect(priceFor('claude-sonnet-4-5')).toMatchObject({
      input: 3,
      cachedInput: 0.3,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      output: 15,
    });
    expect(priceFor('claude-sonnet-4-5')!.longContext).toMatchObject({ aboveTokens: 200_000, input: 6, output: 22.5 });
    expect(priceFor('gemini-2.5-pro')).toMatchObject({ input: 1.25, cachedInput: 0.125, output: 10 });
    expect(priceFor('gemini-2.5-pro')!.longContext).toMatchObject({ input: 2.5, cachedInput: 0.25, output: 15 });
  });

  it('bill the long-context rates only above the threshold, counting every input kind', () => {
    const pro = priceFor('gemini-2.5-pro')!;
    expect(ratesFor(pro, split({ input: 200_000 })).input).toBe(1.25);
    expect(ratesFor(pro, split({ input: 150_000, cachedInput: 50_001 })).input).toBe(2.5);
  });

  it('bill a reported service tier the model is priced for, the standard rates for any other', () => {
    const gpt4o = priceFor('gpt-4o')!;
    expect(costOfTokens(gpt4o, split({ input: 1e6, serviceTier: 'priority' }))).toBeCloseTo(4.25, 12);
    expect(costOfTokens(gpt4o, split({ input: 1e6, serviceTier: 'default' }))).toBeCloseTo(2.5, 12);
    expect(costOfTokens(gpt4o, split({ input: 1e6, serviceTier: 'flex' }))).toBeCloseTo(2.5, 12);
  });
});

describe('a usage split by kind', () => {
  it('takes OpenAI cached tokens out of the prompt, and its service tier from the billing detail', () => {
    const usage = withBillingDetail(
      { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 800 } },
      { serviceTier: 'flex' },
    );
    expect(tokenSplit(usage)).toEqual(split({ input: 200, cachedInput: 800, output: 50, serviceTier: 'flex' }));
    // The detail is not part of what the client reads.
    expect(JSON.parse(JSON.stringify(usage))).not.toHaveProperty('service_tier');
  });

  it("reads Anthropic's cache reads and its 5-minute and 1-hour writes", () => {
    const usage = anthropicUsage({
      input_tokens: 100,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      output_tokens: 40,
      service_tier: 'standard',
    });
    expect(usage).toMatchObject({
      prompt_tokens: 5100,
      completion_tokens: 40,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 3000 },
    });
    expect(tokenSplit(usage)).toEqual(
      split({
        input: 100,
        cachedInput: 2000,
        cacheWrite5m: 1000,
        cacheWrite1h: 2000,
        output: 40,
        serviceTier: 'standard',
      }),
    );
  });

  it("reads Gemini's cached content, which its prompt count includes", () => {
    const usage = geminiUsage({ promptTokenCount: 1000, cachedContentTokenCount: 600, candidatesTokenCount: 10 });
    expect(tokenSplit(usage)).toMatchObject({ input: 400, cachedInput: 600, output: 10 });
  });

  it("reads DeepSeek's prompt_cache_hit_tokens where it gives no details", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 1, total_tokens: 1001, prompt_cache_hit_tokens: 900 };
    expect(tokenSplit(usage)).toMatchObject({ input: 100, cachedInput: 900 });
  });

  it('never counts a part larger than the prompt', () => {
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 1,
      total_tokens: 11,
      prompt_tokens_details: { cached_tokens: 50 },
    };
    expect(tokenSplit(usage)).toMatchObject({ input: 0, cachedInput: 10 });
  });
});

describe('negotiated prices', () => {
  const at = new Date('2026-11-29T10:00:00Z');
  it("keep the list price's cache ratios where the contract names none", () => {
    expect(overridePrice({ provider: null, model: 'claude-sonnet-4-5', input: 2, output: 10, updatedAt: at })).toEqual({
      input: 2,
      output: 10,
      cachedInput: 0.2,
      cacheWrite5m: 2.5,
      cacheWrite1h: 4,
      asOf: '2026-11-29',
    });
  });

  it("win in order: the workspace's, the deployment's, the list price", () => {
    const book = new PriceBook();
    book.setDeployment([{ provider: 'openai', model: 'gpt-4o', input: 2, output: 8, updatedAt: at }]);
    book.setWorkspace('t1', [{ provider: null, model: 'gpt-4o', input: 1, output: 4, updatedAt: at }]);
    expect(book.resolve('t1', 'gpt-4o', 'openai')).toMatchObject({ source: 'workspace', price: { input: 1 } });
    expect(book.resolve('t2', 'gpt-4o', 'openai')).toMatchObject({ source: 'deployment', price: { input: 2 } });
    expect(book.resolve('t2', 'gpt-4o', 'groq')).toMatchObject({ source: 'list', price: { input: 2.5 } });
    book.setWorkspace('t1', []);
    expect(book.resolve('t1', 'gpt-4o', 'openai')!.source).toBe('deployment');
  });
});

describe("the README's worked examples", () => {
  const cost = (model: string, s: Partial<TokenSplit>, provider?: string) =>
    Math.round(costOfTokens(priceFor(model, provider)!, split(s)) * 1e12) / 1e12;
  it('cost what the README says', () => {
    expect(cost('gpt-4o', { input: 2_000, cachedInput: 8_000, output: 20 })).toBe(0.0152);
    expect(cost('gpt-4o', { input: 2_000, cachedInput: 8_000, output: 20, serviceTier: 'priority' })).toBe(0.02584);
    expect(cost('o4-mini', { input: 2_000, cachedInput: 4_000, output: 20, serviceTier: 'flex' })).toBe(0.001694);
    expect(
      cost('claude-sonnet-4-5', {
        input: 1_000,
        cachedInput: 6_000,
        cacheWrite5m: 2_000,
        cacheWrite1h: 3_000,
        output: 20,
      }),
    ).toBe(0.0306);
    expect(cost('gemini-2.5-pro', { input: 200_000, cachedInput: 100_000, output: 20 })).toBe(0.5253);
    expect(cost('deepseek-chat', { input: 1_000, cachedInput: 4_000, output: 100 }, 'deepseek')).toBe(0.000434);
    expect(ratesFor(priceFor('claude-sonnet-4-5')!, split({ input: 250_000 }))).toMatchObject({ cacheWrite1h: 12 });
  });
});
