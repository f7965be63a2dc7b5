/**
 * IANA time zone names, as people type them: `Europe/Paris`, `europe/paris`, `America/New_York`,
 * `UTC`. The runtime's own time zone database (ICU, through Intl) decides what exists and which
 * daylight-saving rules apply; a name it knows under another spelling (Europe/Kyiv) is kept in the
 * spelling it resolves to (Europe/Kiev on Node 20), which names the same rules.
 */

/** The zones a name made only of letters may stand for (a bare `paris` is not a zone). */
const BARE_ZONES = new Set(['utc', 'gmt', 'etc/utc', 'etc/gmt']);

/** The canonical spelling of an IANA zone name, or undefined when it is not one. */
export function canonicalZone(name: string): string | undefined {
  const trimmed = name.trim();
  // Only Area/Location names and UTC: Intl also takes offsets (+01:00) and abbreviations it guesses at.
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+){1,2}$/.test(trimmed) && !BARE_ZONES.has(trimmed.toLowerCase())) return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
    // Intl answers `UTC` for every UTC spelling; anything else comes back as the name's canonical case.
    return resolved === 'Etc/UTC' || resolved === 'Etc/GMT' ? 'UTC' : resolved;
  } catch {
    return undefined;
  }
}

let zones: string[] | undefined;

/** Every zone the runtime knows, canonical names first (for autocomplete and suggestions). */
export function supportedZones(): string[] {
  zones ??= [...Intl.supportedValuesOf('timeZone'), 'UTC'];
  return zones;
}

/** Up to `limit` zone names containing `text` (case-insensitive), those that start with it first. */
export function zonesMatching(text: string, limit = 25): string[] {
  const needle = text.trim().toLowerCase();
  if (!needle) return ['UTC', 'Europe/London', 'Europe/Paris', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo'].slice(0, limit);
  const all = supportedZones();
  const starts = all.filter((z) => z.toLowerCase().startsWith(needle) || z.toLowerCase().split('/').pop()!.startsWith(needle));
  const contains = all.filter((z) => !starts.includes(z) && z.toLowerCase().includes(needle));
  return [...starts, ...contains].slice(0, limit);
}
