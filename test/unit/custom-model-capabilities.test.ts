import { describe, expect, it } from 'vitest';
import { satisfies } from '../../server/gateway/routing/targets.js';
import { ProviderRegistry } from '../../server/providers/registry.js';

// A custom provider's models are unknown to the built-in capability table: what the workspace
// declared for each (vision, tools, json) is what routing narrows on.

describe('declared capabilities of a custom provider', () => {
  it('reach the routing targets, and narrowing follows them', async () => {
    const registry = new ProviderRegistry();
    await registry.load([
      {
        name: 'corp',
        family: 'openai-compatible',
        baseUrl: 'https://llm.corp.test/v1',
        builtinModels: ['corp-vision', 'corp-text'],
        source: 'custom',
        declaredModels: true,
        capabilities: new Map([
          ['corp-vision', { vision: true, tools: true, json: false }],
          ['corp-text', { vision: false, tools: false, json: true }],
        ]),
      },
    ]);
    const target = (model: string) => registry.targets().find((t) => t.model === model)!;
    const needs = (n: Partial<{ vision: boolean; tools: boolean; json: boolean }>) => ({
      vision: false,
      tools: false,
      json: false,
      structured: false,
      ...n,
    });
    expect(satisfies(target('corp-vision'), needs({ vision: true, tools: true }))).toBe(true);
    expect(satisfies(target('corp-vision'), needs({ json: true }))).toBe(false);
    expect(satisfies(target('corp-text'), needs({ json: true }))).toBe(true);
    expect(satisfies(target('corp-text'), needs({ vision: true }))).toBe(false);
    // Unknown to the built-in table, so without the declaration neither would take an image.
    expect(satisfies({ provider: 'corp', model: 'corp-vision' }, needs({ vision: true }))).toBe(false);
  });
});
