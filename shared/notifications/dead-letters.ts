import { listDeadLetters, redeliverDeadLetter } from '../db/repositories/webhook-deliveries.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { now, toWireTime } from '../time.ts';
import { ownQueue } from './list.ts';
import type { DeadLetterList } from './webhook-view.ts';

/** The most dead letters one listing answers (the oldest first); redelivering some shows the next. */
export const maxDeadLetters = 100;

/** The caller's dead letters: notifications its endpoint never took, oldest first. */
export async function deadLetters(caller: string, customer: string): Promise<DeadLetterList> {
  ownQueue(caller, customer);
  const letters = await listDeadLetters(customer, maxDeadLetters);
  return {
    entities: letters.map(({ notificationId, attempts, deadDate, lastFailure }) => ({ notificationId, attempts, deadDate, lastFailure })),
  };
}

/** Puts a dead letter back into the retry lane, due at once (with a fresh set of attempts). */
export async function redeliver(caller: string, customer: string, notificationId: number): Promise<void> {
  ownQueue(caller, customer);
  if (!(await redeliverDeadLetter(customer, notificationId, toWireTime(now())))) {
    throw new ObjectDoesNotExist('Dead letter', String(notificationId));
  }
}
