import type { OidcProviderSettings } from '../../../config.js';

/**
 * Signing in with OpenID providers (Google, or any OpenID Connect provider): the authorization code flow with PKCE
 * (S256), state and nonce, through openid-client (a certified relying party). The library is loaded, and each
 * provider's discovery document fetched, on the first sign-in with it, not at start.
 */
type OpenIdClient = typeof import('openid-client');
let library: Promise<OpenIdClient> | undefined;
const openIdClient = () => {
  library ??= import('openid-client');
  return library;
};

/** What a started sign-in keeps (sealed in a short-lived cookie) until the provider sends the person back. */
export interface PendingOidc {
  provider: string;
  workspaceId: string;
  userType: 'client' | 'internalUser';
  state: string;
  nonce: string;
  verifier: string;
  /** Linking an identity to the signed-in person of this session, rather than signing in. */
  linkSessionId?: string;
  expiresAt: number;
}

export interface OidcClaims {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/** Plain http only for a provider on this machine (tests, a local identity server); never for a real one. */
const isLoopback = (issuer: string) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(issuer);

export class OidcProviders {
  private readonly configurations = new Map<string, Promise<import('openid-client').Configuration>>();

  constructor(
    private readonly providers: readonly OidcProviderSettings[],
    private readonly portalUrl: string,
  ) {}

  list(): { id: string; name: string }[] {
    return this.providers.map(({ id, name }) => ({ id, name }));
  }

  has(id: string): boolean {
    return this.providers.some((provider) => provider.id === id);
  }

  /** The one redirect URI of a provider, for every workspace (the workspace rides in the sealed cookie). */
  callbackUrl(id: string): string {
    return `${this.portalUrl}/portal/oidc/${id}/callback`;
  }

  private configuration(id: string) {
    const settings = this.providers.find((provider) => provider.id === id);
    if (!settings) throw new Error(`unknown OIDC provider ${id}`);
    let configuration = this.configurations.get(id);
    if (!configuration) {
      configuration = openIdClient().then((client) =>
        client.discovery(
          new URL(settings.issuer),
          settings.clientId,
          settings.clientSecret,
          client.ClientSecretBasic(settings.clientSecret),
          {
            ...(isLoopback(settings.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
          },
        ),
      );
      // A provider that could not be reached is asked again next time.
      configuration.catch(() => this.configurations.delete(id));
      this.configurations.set(id, configuration);
    }
    return configuration;
  }

  /** Where to send the person, and what to keep until they come back (10 minutes). */
  async start(
    id: string,
    pending: Omit<PendingOidc, 'state' | 'nonce' | 'verifier' | 'provider'>,
  ): Promise<{ url: string; pending: PendingOidc }> {
    const [client, configuration] = await Promise.all([openIdClient(), this.configuration(id)]);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.callbackUrl(id),
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, pending: { ...pending, provider: id, state, nonce, verifier } };
  }

  /** The person the provider vouches for, from its callback (`query`: the callback's query string). */
  async finish(pending: PendingOidc, query: string): Promise<OidcClaims> {
    const [client, configuration] = await Promise.all([openIdClient(), this.configuration(pending.provider)]);
    const tokens = await client.authorizationCodeGrant(configuration, new URL(`${this.callbackUrl(pending.provider)}?${query}`), {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    return {
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      emailVerified: claims.email_verified === true,
    };
  }
}
