/**
 * The `current_time` tool reads the injected clock, so every answer here is exact.
 */
import { describe, expect, it } from 'vitest';
import { currentTimeTool } from '../../tools/current-time.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

const NOW = new Date('2025-03-04T14:05:09Z');
const at = async (timezone?: string) => outputOf(await currentTimeTool.run({ timezone }, toolContext({ now: () => NOW })));

describe('current_time', () => {
  it('gives the date and time in UTC by default', async () => {
    expect(await at()).toBe('Tuesday 4 March 2025, 14:05:09 (UTC, UTC). ISO 8601: 2025-03-04T14:05:09Z.');
  });

  it('gives the local date and time in an IANA zone, with its offset', async () => {
    expect(await at('Europe/Paris')).toBe('Tuesday 4 March 2025, 15:05:09 (Europe/Paris, UTC+01:00). ISO 8601: 2025-03-04T15:05:09+01:00.');
    expect(await at('America/New_York')).toBe('Tuesday 4 March 2025, 09:05:09 (America/New_York, UTC-05:00). ISO 8601: 2025-03-04T09:05:09-05:00.');
  });

  it('crosses the date line when the zone is a day ahead', async () => {
    expect(await at('Pacific/Kiritimati')).toMatch(/^Wednesday 5 March 2025, 04:05:09 \(Pacific\/Kiritimati, UTC\+14:00\)/);
  });

  it('accepts zone names in any letter case and fixed offsets such as UTC+5:30', async () => {
    expect(await at('asia/tokyo')).toContain('(Asia/Tokyo, UTC+09:00)');
    expect(await at('UTC+5:30')).toBe('Tuesday 4 March 2025, 19:35:09 (UTC+05:30). ISO 8601: 2025-03-04T19:35:09+05:30.');
    expect(await at('-03')).toContain('11:05:09 (UTC-03:00)');
  });

  it('explains an unknown zone and suggests what to use', async () => {
    await expect(at('Mars/Olympus_Mons')).rejects.toThrow(/"Mars\/Olympus_Mons" is not a time zone I know\. Use an IANA name such as Europe\/London/);
    await expect(at('UTC+19')).rejects.toThrow(/not a valid UTC offset/);
  });

  it('is offered to the text protocol with timezone as its plain input', () => {
    expect(currentTimeTool.name).toBe('current_time');
    expect(currentTimeTool.textParameter).toBe('timezone');
    expect(currentTimeTool.network).toBeUndefined();
    expect(currentTimeTool.parameters.safeParse({}).success).toBe(true);
  });
});
