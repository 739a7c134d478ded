/**
 * Passwords, hashed with Argon2id at OWASP's recommended cost (19 MiB, 2 passes, 1 lane: about 30 ms
 * here). The library is native and used only by sign-ins, so it is loaded on the first one, not at start.
 */
type Argon2 = typeof import('@node-rs/argon2');
let argon2: Promise<Argon2> | undefined;
const library = () => {
  argon2 ??= import('@node-rs/argon2');
  return argon2;
};

const COST = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** ASVS 2.1: at least 12 characters, up to 128, any characters, no composition rules. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

export async function hashPassword(password: string): Promise<string> {
  return (await library()).hash(password.normalize('NFKC'), COST);
}

/** A hash of nothing anyone knows: checked when there is no account or no password, so both take as long as a real check. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` is the one `hash` was made from; with no hash, a check against the decoy that always
 * fails, so a missing account or password answers in the time a wrong password does.
 */
export async function passwordMatches(hash: string | null, password: string): Promise<boolean> {
  const { verify } = await library();
  if (hash === null) {
    decoy ??= hashPassword(`decoy ${Math.random()}`);
    await verify(await decoy, password.normalize('NFKC')).catch(() => false);
    return false;
  }
  return verify(hash, password.normalize('NFKC')).catch(() => false);
}
