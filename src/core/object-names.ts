// Object names are scoped by principal, so one principal can never address
// another's router, conversation or code-mode session, whatever ids the client sends.

export function routerName(principal: string): string {
  return `router:${principal.length}:${principal}`;
}

export function conversationName(principal: string, conversationId: string): string {
  return `conversation:${principal.length}:${principal}:${conversationId}`;
}

/** The one object that admits a hosted user's runs (docs/hosting.md#limits). */
export function userLimiterName(userId: string): string {
  return `limits:${userId.length}:${userId}`;
}

/** The one object that holds a team's monthly token counter (docs/hosting.md#limits). */
export function teamBudgetName(teamId: string): string {
  return `budget:${teamId.length}:${teamId}`;
}

/** One object per code-mode session (docs/code-mode.md#service). */
export function codeModeSessionName(principal: string, sessionId: string): string {
  return `code-mode:${principal.length}:${principal}:${sessionId}`;
}

/** The one object that holds a team's key pools: spread, cool-downs, broken marks (docs/providers.md#keys-behind-one-model). */
export function keyPoolName(teamId: string): string {
  return `keys:${teamId.length}:${teamId}`;
}
