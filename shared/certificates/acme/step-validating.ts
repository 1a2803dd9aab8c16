import type * as acme from 'acme-client';
import type { AuthorityOrder, Validations } from '../../model/certificate-process.ts';
import { backoffSeconds, pollSeconds, servedPollSeconds, withRetryAfter } from './client.ts';
import { type AcmeStep, anew, isDead, killedBy, later, replace, type StepContext, type Taken, withChallenges } from './order.ts';

/**
 * The authorizations are read once per pass. All valid: the order is finalized next. An invalid
 * one shows its problem and starts a new order after a back-off; one expired or deactivated, no
 * challenge having failed, has the order replaced at once. Still pending: read again after the
 * longest Retry-After the CA sent with them, else after pollSeconds. A challenge the CA left
 * pending with an error (a failed lookup) is answered again (RFC 8555 8.2), once the records are
 * served, with a back-off; from the third time the notes say what the CA reported.
 */
export const validating: AcmeStep = {
  due: (order) => order.step === 'validating',
  run: async (context) => {
    const { client, request, order, now, records } = context;
    const urls = order.challenges.map((c) => c.authorization);
    const read = await withRetryAfter(urls, () => client.getAuthorizations({ authorizations: urls } as unknown as acme.Order));
    const current = read.result;
    const status = new Map(current.map((a) => [a.url, a]));
    const challenges = order.challenges.map((c) => ({ ...c, status: status.get(c.authorization)?.status ?? c.status }));
    const validations = withChallenges(request.validations, challenges);
    const invalid = current.find((a) => a.status === 'invalid');
    if (invalid) {
      const detail =
        (invalid.challenges.find((c) => c.type === 'dns-01') as { error?: { detail?: string } } | undefined)?.error?.detail ??
        `the authorization of ${invalid.identifier.value} is invalid`;
      const problem = detail.replace(/\s+/g, ' ').slice(0, 300);
      // The order is dead: the records go, and a new order starts after the back-off (the entry stays ATTENTION meanwhile).
      await records.remove(order);
      const failures = context.failures + 1;
      return {
        order: anew(order, { problem, failures, notBefore: later(now, backoffSeconds(failures)) }),
        validations,
        note: `The certificate authority refused the validation of ${invalid.identifier.value}: ${problem}`,
      };
    }
    const dead = current.find((a) => isDead(a.status));
    if (dead) return replace(context, killedBy(dead), validations, { ...order, challenges });
    if (challenges.every((c) => c.status === 'valid')) return { order: { ...order, challenges, step: 'finalize' }, validations };
    const failed = current.flatMap((a) => {
      const challenge = a.challenges.find((c) => c.type === 'dns-01') as
        | (acme.Authorization['challenges'][number] & { error?: { detail?: string } })
        | undefined;
      return a.status === 'pending' && challenge?.status === 'pending' && challenge.error ? [{ authorization: a, challenge }] : [];
    });
    if (failed.length > 0) return answerAgain(context, failed, { ...order, challenges }, validations);
    return { order: { ...order, challenges, notBefore: later(now, read.retryAfter ?? pollSeconds) }, validations };
  },
};

/** After how many answers again the notes say what the CA reported. */
const reportAfter = 2;

/** Answers again the challenges the CA left pending with an error, once the records are served; then waits the back-off. */
async function answerAgain(
  { client, records, now }: StepContext,
  failed: { authorization: acme.Authorization; challenge: acme.Authorization['challenges'][number] & { error?: { detail?: string } } }[],
  order: AuthorityOrder,
  validations: Validations,
): Promise<Taken> {
  if (!(await records.served(order))) return { order: { ...order, notBefore: later(now, servedPollSeconds) }, validations };
  for (const { challenge } of failed) await client.completeChallenge(challenge);
  const reanswered = (order.reanswered ?? 0) + 1;
  const reported = failed
    .map(
      ({ authorization, challenge }) =>
        `${authorization.identifier.value}: ${(challenge.error?.detail ?? 'an error').replace(/\s+/g, ' ').slice(0, 200)}`,
    )
    .join('; ');
  return {
    order: { ...order, reanswered, notBefore: later(now, backoffSeconds(reanswered)) },
    validations,
    ...(reanswered >= reportAfter
      ? {
          note: `The certificate authority left the validation pending with an error (${reported}); it was asked again (${reanswered} times).`,
        }
      : {}),
  };
}
