/**
 * Scopes: what an integration may receive or do in an organization that installed it. An
 * integration asks for scopes when it is published; an installation records the scopes an admin of
 * the installing organization accepted (at install, then through the installation's update). The
 * integration holds, in an installation, the scopes it asks for that were accepted there: asking
 * for more later grants nothing until accepted, asking for fewer takes effect at once.
 */

/** A set of scopes as recorded: each once, sorted. */
export function normalizedScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].sort();
}

/** The scopes in force in an installation: accepted there and still asked for by the integration. */
export function grantedScopes(accepted: readonly string[], requested: readonly string[]): string[] {
  return normalizedScopes(accepted.filter((scope) => requested.includes(scope)));
}

/** The scopes the integration asks for that the installation has not accepted (yet). */
export function pendingScopes(accepted: readonly string[], requested: readonly string[]): string[] {
  return normalizedScopes(requested.filter((scope) => !accepted.includes(scope)));
}

/** Whether an installation holds `scope`. */
export function holdsScope(accepted: readonly string[], requested: readonly string[], scope: string): boolean {
  return accepted.includes(scope) && requested.includes(scope);
}
