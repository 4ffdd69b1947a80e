import { createDestinationSlots, destinationOf, slotsPerDestination } from './destination-slots';

describe('destination slots', () => {
  it('keeps a quarter of the consumer slots for other receivers', () => {
    expect(slotsPerDestination(16)).toBe(12);
    expect(slotsPerDestination(2)).toBe(1);
    expect(slotsPerDestination(1)).toBe(1);
  });

  it('names a destination by host and port', () => {
    expect(destinationOf('https://hooks.example.com/a?b=1')).toBe('hooks.example.com:443');
    expect(destinationOf('http://127.0.0.1:8080/x')).toBe('127.0.0.1:8080');
    expect(destinationOf('not a url')).toBe('not a url');
  });

  it('holds an attempt over the bound until a slot of its destination frees, first come first served', async () => {
    const slots = createDestinationSlots(1);
    const first = await slots.take('a:80', 1_000);
    expect(first).not.toBeNull();
    const order: string[] = [];
    const second = slots.take('a:80', 1_000).then((release) => {
      order.push('second');
      return release;
    });
    const third = slots.take('a:80', 1_000).then((release) => {
      order.push('third');
      return release;
    });
    // Another destination is not held up by a's.
    expect(await slots.take('b:80', 0)).not.toBeNull();
    first!();
    (await second)!();
    expect(await third).not.toBeNull();
    expect(order).toEqual(['second', 'third']);
  });

  it('gives up after the wait when no slot frees (a slow receiver), and a late release does not leak a slot', async () => {
    const slots = createDestinationSlots(1);
    const held = await slots.take('slow:80', 1_000);
    expect(await slots.take('slow:80', 20)).toBeNull();
    held!();
    held!(); // releasing twice frees one slot, not two
    const again = await slots.take('slow:80', 0);
    expect(again).not.toBeNull();
    expect(await slots.take('slow:80', 10)).toBeNull();
  });
});
