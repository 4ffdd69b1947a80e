import { buildDeliveryBody } from './data-path';

describe('buildDeliveryBody', () => {
  const data = { items: [{ name: 'first', price: 3 }, { name: 'second' }], total: 2, empty: null };

  it('sends everything without a dataPath', () => {
    expect(buildDeliveryBody(data)).toBe(JSON.stringify(data));
    expect(buildDeliveryBody(data, '')).toBe(JSON.stringify(data));
    expect(buildDeliveryBody(data, null)).toBe(JSON.stringify(data));
  });

  it('narrows into objects and arrays', () => {
    expect(buildDeliveryBody(data, 'items')).toBe(JSON.stringify(data.items));
    expect(buildDeliveryBody(data, 'items.0')).toBe('{"name":"first","price":3}');
    expect(buildDeliveryBody(data, 'items.1.name')).toBe('"second"');
    expect(buildDeliveryBody(data, 'total')).toBe('2');
  });

  it('delivers null for a path that does not resolve', () => {
    expect(buildDeliveryBody(data, 'items.5.name')).toBe('null');
    expect(buildDeliveryBody(data, 'missing')).toBe('null');
    expect(buildDeliveryBody(data, 'total.value')).toBe('null');
    expect(buildDeliveryBody(data, 'empty')).toBe('null');
    expect(buildDeliveryBody(undefined)).toBe('null');
  });

  it('never reaches the prototype', () => {
    expect(buildDeliveryBody(data, '__proto__')).toBe('null');
    expect(buildDeliveryBody(data, 'constructor')).toBe('null');
    expect(buildDeliveryBody(data, 'items.constructor')).toBe('null');
    expect(buildDeliveryBody(data, 'items.length')).toBe('null');
  });
});
