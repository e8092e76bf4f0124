// Object names are scoped by principal, so one principal can never address
// another's router or conversation, whatever ids the client sends.

export function routerName(principal: string): string {
  return `router:${principal.length}:${principal}`;
}

export function conversationName(principal: string, conversationId: string): string {
  return `conversation:${principal.length}:${principal}:${conversationId}`;
}
