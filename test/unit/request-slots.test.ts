/**
 * The slots that bound upstream requests in flight: first come, first served, a wait ended by the
 * waiter's signal, and a slot given back exactly once.
 */
import { expect, it } from 'vitest';
import { RequestSlots } from '../../shared/sources/upstream/request-slots.js';

const live = () => new AbortController().signal;

it('hands out its slots at once, then makes the next taker wait for one given back, in order', async () => {
  const slots = new RequestSlots(2);
  const first = await slots.take(live());
  await slots.take(live());
  const order: string[] = [];
  const third = slots.take(live()).then((giveBack) => {
    order.push('third');
    return giveBack;
  });
  const fourth = slots.take(live()).then(() => order.push('fourth'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(order).toEqual([]);
  first();
  (await third)();
  await fourth;
  expect(order).toEqual(['third', 'fourth']);
});

it("ends a wait with the signal's reason, and the slot goes to the next waiter instead", async () => {
  const slots = new RequestSlots(1);
  const giveBack = await slots.take(live());
  const impatient = new AbortController();
  const gaveUp = slots.take(impatient.signal);
  const patient = slots.take(live());
  const reason = new Error('deadline');
  impatient.abort(reason);
  await expect(gaveUp).rejects.toBe(reason);
  giveBack();
  await expect(patient).resolves.toBeTypeOf('function');
});

it('refuses at once when the signal is already aborted', async () => {
  const slots = new RequestSlots(1);
  await expect(slots.take(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
  await expect(slots.take(live())).resolves.toBeTypeOf('function');
});

it('counts a slot given back twice once', async () => {
  const slots = new RequestSlots(1);
  const giveBack = await slots.take(live());
  giveBack();
  giveBack();
  await slots.take(live());
  const waiting = new AbortController();
  const second = slots.take(waiting.signal);
  waiting.abort(new Error('still taken'));
  await expect(second).rejects.toThrow('still taken');
});
