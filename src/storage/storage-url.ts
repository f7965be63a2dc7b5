/**
 * The parts of reading a storage URL (KEYV_URL, KNOWLEDGE_URL) that know no backend: its scheme, and
 * the URL with its password hidden for messages and logs. Which backend a scheme names, and where its
 * URL points, is the registry's question (registry.ts: each backend folder declares its schemes).
 */

/** The scheme of `url`, lower case (`sqlite` of `SQLite:///x`), or undefined when it has none. */
export function schemeOf(url: string): string | undefined {
  return /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
}

/** A URL with its password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
