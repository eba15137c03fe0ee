import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Writes an order export of `count` orders (the import's documented format: customers, items,
 * refunds on one order in ten) spread over `days` days ending at `end`, streamed to `path` in
 * bounded memory. Deterministic: the same arguments write the same bytes.
 */
export async function writeOrderExport(path: string, count: number, options: { days?: number; end?: Date; customers?: number } = {}): Promise<void> {
  const days = options.days ?? 365;
  const end = (options.end ?? new Date('2026-11-30T00:00:00Z')).getTime();
  const customers = options.customers ?? Math.max(1, Math.floor(count / 2.5));
  const span = days * 86_400_000;
  const out = createWriteStream(path);
  for (let index = 0; index < count; index++) {
    const orderDate = new Date(end - span + Math.floor((index / count) * span)).toISOString();
    const customer = (index * 7919) % customers;
    const value = 20 + ((index * 37) % 180) + 0.95;
    const line = {
      orderId: String(1_000_000_000 + index),
      orderDate,
      value,
      currency: index % 10 === 9 ? 'EUR' : 'USD',
      sourceName: index % 4 === 3 ? 'pos' : 'web',
      tags: index % 3 === 0 ? ['vip'] : [],
      paymentGateway: index % 2 === 0 ? 'stripe' : 'paypal',
      financialStatus: index % 10 === 3 ? 'partially_refunded' : index % 20 === 7 ? 'pending' : 'paid',
      ...(index % 10 === 3 ? { refunds: [{ amount: 10, processedAt: new Date(Date.parse(orderDate) + 86_400_000).toISOString() }] } : {}),
      customer: { emails: [`customer${customer}@example.com`], ...(customer % 2 === 0 ? { phones: [`+1555${String(customer).padStart(7, '0')}`] } : {}) },
      items: [{ sku: `SKU-${index % 50}`, quantity: 1, price: value - 10.95 }, { sku: 'SHIP', quantity: 1, price: 10.95 }],
      shippingCost: 4.5,
    };
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, count] = process.argv.slice(2);
  if (!path || !count) throw new Error('usage: order-export.ts <path> <count>');
  await writeOrderExport(path, Number(count));
}
