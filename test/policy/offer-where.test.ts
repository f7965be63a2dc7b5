/** `offerOnlyWhere`: a tool narrowed to the servers where it has something to work on. */
import { describe, expect, it } from 'vitest';
import { offerOnlyWhere, type RunScope } from '../../src/policy/index.js';

const scope = (guildId: string | null): RunScope => ({ guildId, channelId: 'c1', categoryId: null, userId: 'u1', roleIds: [] });
const policy = (names: string[]) => async () => new Set(names);

function recordingLogger() {
  const warnings: unknown[][] = [];
  return { warnings, logger: { warn: (...args: unknown[]) => void warnings.push(args) } as never };
}

describe('offerOnlyWhere', () => {
  it('drops the tool in a server without documents and keeps it in one with them', async () => {
    const { logger } = recordingLogger();
    const allowed = offerOnlyWhere(policy(['calculate', 'search_knowledge']), 'search_knowledge', async (g) => g === 'with-docs', logger);
    expect([...(await allowed(scope('with-docs')))]).toEqual(['calculate', 'search_knowledge']);
    expect([...(await allowed(scope('empty')))]).toEqual(['calculate']);
  });

  it('never adds the tool the policy left out, and does not even ask then', async () => {
    const { logger } = recordingLogger();
    let asked = 0;
    const allowed = offerOnlyWhere(policy(['calculate']), 'search_knowledge', async () => { asked += 1; return true; }, logger);
    expect([...(await allowed(scope('with-docs')))]).toEqual(['calculate']);
    expect(asked).toBe(0);
  });

  it('drops the tool outside a server', async () => {
    const { logger } = recordingLogger();
    const allowed = offerOnlyWhere(policy(['search_knowledge', 'current_time']), 'search_knowledge', async () => true, logger);
    expect([...(await allowed(scope(null)))]).toEqual(['current_time']);
  });

  it('drops the tool when the documents cannot be counted, and warns once a minute per server', async () => {
    const { logger, warnings } = recordingLogger();
    let now = 0;
    const allowed = offerOnlyWhere(policy(['search_knowledge', 'calculate']), 'search_knowledge', async () => { throw new Error('database down'); }, logger, () => now);
    expect([...(await allowed(scope('g1')))]).toEqual(['calculate']);
    await allowed(scope('g1'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![0]).toMatchObject({ guildId: 'g1', tool: 'search_knowledge' });
    now = 60_000;
    await allowed(scope('g1'));
    expect(warnings).toHaveLength(2);
  });
});
