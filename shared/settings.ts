/**
 * Settings a function cannot run without. Read when its module loads, that is when the function
 * starts: a missing or unknown value stops it there with a message naming the setting, so a
 * deployment never falls back to a default it did not choose (the sandbox registry or authority,
 * a development secret).
 */

/** The value of a required setting, one of `allowed`; throws at start when it is unset or another value. */
export function requiredSetting<T extends string>(name: string, allowed: readonly T[]): T {
  const value = process.env[name]?.trim();
  if (!value) {
    throw new Error(
      `${name} is not set: this function needs it (one of: ${allowed.join(', ')}); the stack sets it from the stage's integrations`,
    );
  }
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`${name} is '${value}'; this build knows only: ${allowed.join(', ')}`);
  return value as T;
}
