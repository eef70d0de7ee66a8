/** An input sent outside HTTP (tests drive the actor directly): no client name, token or address. */
export const unnamedSource = { clientId: null, sentBy: null, sentFrom: null } as const;
