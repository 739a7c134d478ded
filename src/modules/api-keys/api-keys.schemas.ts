export const API_KEY_KINDS = ['workspace', 'app'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];
